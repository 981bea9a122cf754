import fc from 'fast-check';
import { handleCommand } from '../../src/commands/handler.js';
import { DomainError } from '../../src/commands/errors.js';
import type { MemoryCommand } from '../../src/commands/memory/commands.js';
import { memoryDecider } from '../../src/commands/memory/decider.js';
import { stampEvents } from '../../src/commands/decider.js';
import { ConcurrencyError } from '../../src/events/errors.js';
import type { EventLog } from '../../src/events/log/event-log.js';
import { streams } from '../../src/events/streams.js';
import { testMetadata } from './decider-spec.js';

/** One step of a random history: a memory command, a batch of accesses, or a catch-up point. */
export type Step =
  | {
      readonly kind: 'write';
      readonly id: number;
      readonly text: string;
      readonly importance: number;
      readonly session: number;
      readonly persona: string | null;
      readonly sources: readonly string[];
    }
  | { readonly kind: 'update'; readonly id: number; readonly text?: string; readonly importance?: number }
  | { readonly kind: 'forget' | 'archive' | 'restore'; readonly id: number }
  | { readonly kind: 'access'; readonly ids: readonly number[] }
  | { readonly kind: 'decay'; readonly id: number; readonly to: number }
  | { readonly kind: 'catchUp' };

const id = fc.integer({ min: 0, max: 7 });
const text = fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('记忆系统', 'Alice likes tea', '南京市长江大桥'));
const importance = fc.double({ min: 0, max: 1, noNaN: true });

export const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    id,
    text,
    importance,
    session: fc.integer({ min: 0, max: 2 }),
    persona: fc.option(fc.constantFrom('p1', 'p2'), { nil: null }),
    sources: fc.array(fc.constantFrom('我们明天去散步', 'Bob said hi', '记忆'), { maxLength: 2 }),
  }),
  fc.record({ kind: fc.constant('update' as const), id, text, importance }, { requiredKeys: ['kind', 'id'] }),
  fc.record({ kind: fc.constantFrom('forget' as const, 'archive' as const, 'restore' as const), id }),
  fc.record({ kind: fc.constant('access' as const), ids: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant('decay' as const), id, to: importance }),
  fc.constant({ kind: 'catchUp' as const }),
);

export const historyArbitrary = fc.array(stepArbitrary, { minLength: 1, maxLength: 40 });

function toCommand(step: Step, n: number): MemoryCommand | null {
  const metadata = testMetadata(n);
  const memoryId = 'id' in step ? `m${step.id}` : '';
  switch (step.kind) {
    case 'write': {
      const sources = step.sources.map((content, i) => ({
        messageId: `${memoryId}-msg${i}`, sessionId: `s${step.session}`, role: 'user' as const,
        senderId: 'u1', senderName: 'Alice', content, at: metadata.now,
      }));
      const data = { memoryId, text: step.text.trim() ? step.text : 'x', importance: step.importance, sessionId: `s${step.session}` };
      return {
        type: 'WriteMemory',
        metadata,
        data: { personaId: step.persona, userId: step.persona ? 'u1' : null, topics: [], keyFacts: [], participants: [], sentiment: null, sources, ...data },
      };
    }
    case 'update': {
      const changes = { ...(step.text?.trim() ? { text: step.text } : {}), ...(step.importance === undefined ? {} : { importance: step.importance }) };
      return Object.keys(changes).length === 0 ? null : { type: 'UpdateMemory', metadata, data: { memoryId, changes } };
    }
    case 'forget':
      return { type: 'ForgetMemory', metadata, data: { memoryId, reason: 'test' } };
    case 'archive':
      return { type: 'ArchiveMemory', metadata, data: { memoryId, reason: 'test' } };
    case 'restore':
      return { type: 'RestoreMemory', metadata, data: { memoryId } };
    default:
      return null;
  }
}

/** Plays a history against a log; rule violations are refused (and append nothing), as in production. */
export async function playHistory(log: EventLog, steps: readonly Step[], onCatchUp: () => Promise<void>): Promise<void> {
  for (const [n, step] of steps.entries()) {
    if (step.kind === 'catchUp') await onCatchUp();
    else if (step.kind === 'access') {
      const accesses = step.ids.map((i) => ({ memoryId: `m${i}`, count: 1, lastAccessedAt: testMetadata(n).now }));
      await log.append(streams.access, stampEvents([{ type: 'MemoriesAccessed', schemaVersion: 1, data: { batchId: `b${n}`, accesses } }], testMetadata(n + 1000)));
    } else if (step.kind === 'decay') {
      const decays = [{ memoryId: `m${step.id}`, from: 1, to: step.to, accessFrom: 0, accessTo: 0 }];
      const body = { type: 'MemoryImportanceDecayed' as const, schemaVersion: 2 as const, data: { tickId: `t${n}`, decays } };
      await log.append(streams.memory(`m${step.id}`), stampEvents([body], testMetadata(n + 2000)), { expectedRevision: 'stream_exists' }).catch((error: unknown) => {
        if (!(error instanceof ConcurrencyError)) throw error;
      });
    } else {
      const command = toCommand(step, n);
      if (!command) continue;
      await handleCommand(log, memoryDecider, streams.memory(command.data.memoryId), command).catch((error: unknown) => {
        if (!(error instanceof DomainError)) throw error;
      });
    }
  }
}
