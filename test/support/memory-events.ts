import type { EventLog } from '../../src/events/log/event-log.js';
import { streams } from '../../src/events/streams.js';
import { testMetadata } from './decider-spec.js';
import { memoryWrittenEvent } from './events.js';

/** Appends one MemoryWritten as the engine would, with fixed time and ids. */
export function writeTestMemory(log: EventLog, n: number, text = `memory number ${n}`, sessionId: string | null = 's') {
  const meta = testMetadata(n);
  const metadata = { eventId: meta.commandId, occurredAt: meta.now, correlationId: meta.commandId, causationId: meta.commandId, actor: meta.actor };
  return log.append(streams.memory(`m${n}`), [memoryWrittenEvent(`m${n}`, text, { sessionId, metadata })]);
}
