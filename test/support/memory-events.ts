import { stampEvents } from '../../src/commands/decider.js';
import type { EventLog } from '../../src/events/log/event-log.js';
import { streams } from '../../src/events/streams.js';
import { testMetadata } from './decider-spec.js';

/** Appends one MemoryWritten as the engine would, with fixed time and ids. */
export function writeTestMemory(log: EventLog, n: number, text = `memory number ${n}`, sessionId: string | null = 's') {
  return log.append(
    streams.memory(`m${n}`),
    stampEvents(
      [
        {
          type: 'MemoryWritten',
          schemaVersion: 2,
          data: {
            memoryId: `m${n}`, text, importance: 0.5, sessionId, personaId: null, userId: null,
            topics: [], keyFacts: [], participants: [], sentiment: null, sources: [],
          },
        },
      ],
      testMetadata(n),
    ),
  );
}
