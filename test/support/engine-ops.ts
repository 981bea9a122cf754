import { DomainError } from '../../src/commands/errors.js';
import type { MemoryEngine } from '../../src/engine/engine.js';

/** One random command against the engine; `target` picks among the memories written so far. */
export type EngineOp =
  | { readonly kind: 'write'; readonly text: string; readonly session: string; readonly participants?: string[] }
  | { readonly kind: 'update'; readonly target: number; readonly text: string }
  | { readonly kind: 'forget'; readonly target: number }
  | { readonly kind: 'archive'; readonly target: number };

/**
 * Runs `op` through the engine's facade. A command the decider refuses (forgetting a forgotten
 * memory, updating an archived one) is part of a random history, not a failure; anything else throws.
 */
export async function runEngineOp(engine: MemoryEngine, op: EngineOp, ids: string[]): Promise<void> {
  const target = op.kind === 'write' ? undefined : ids[op.target % Math.max(ids.length, 1)];
  const attempt =
    op.kind === 'write'
      ? engine.writeMemory({ text: op.text, sessionId: op.session, participants: op.participants ?? [] }).then((r) => void ids.push(r.memoryId))
      : target === undefined
        ? Promise.resolve()
        : op.kind === 'update'
          ? engine.updateMemory(target, { text: op.text })
          : op.kind === 'forget'
            ? engine.forgetMemory(target)
            : engine.archiveMemory(target);
  await attempt.catch((error: unknown) => {
    if (!(error instanceof DomainError)) throw error;
  });
}
