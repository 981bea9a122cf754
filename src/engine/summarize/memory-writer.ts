import { DomainError } from '../../commands/errors.js';
import type { MemoryWriter } from './task.js';

type Run = (type: 'WriteMemory' | 'ForgetMemory', input: Record<string, unknown>, ctx: { actor: string }) => Promise<unknown>;

/** The summarizer's door to the write path: its memories are written and taken back as `system:summarizer`. */
export function summarizerMemories(run: Run, documents: { get(memoryId: string): unknown }): MemoryWriter & { exists(id: string): boolean } {
  const actor = { actor: 'system:summarizer' };
  return {
    write: (input) => run('WriteMemory', input, actor),
    forget: (memoryId, reason) =>
      run('ForgetMemory', { memoryId, reason }, actor).catch((error: unknown) => {
        // A memory a failed write never created has nothing to take back.
        if (!(error instanceof DomainError && error.code === 'memory_not_found')) throw error;
      }),
    exists: (memoryId) => documents.get(memoryId) !== undefined,
  };
}
