import type { EventLog, RecordedEvent } from '../events/log/event-log.js';
import type { Subject } from '../projections/memory-events.js';
import type { HistoryQueries } from '../queries/history.js';
import { describeEvent } from './describe.js';

/** One line of a memory's or atom's audit trail. */
export interface HistoryEntry {
  readonly position: bigint;
  readonly streamId: string;
  readonly type: RecordedEvent['type'];
  readonly eventId: string;
  readonly occurredAt: string;
  readonly actor: string;
  readonly correlationId: string;
  readonly causationId: string;
  readonly description: string;
}

export interface History {
  readonly id: string;
  readonly kind: Subject['kind'];
  readonly entries: HistoryEntry[];
}

/** Reads the given positions, one range query per run of consecutive positions. */
async function readPositions(log: EventLog, positions: readonly bigint[]): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  let i = 0;
  while (i < positions.length) {
    const from = positions[i] as bigint;
    let to = from;
    while (positions[i + 1] === to + 1n) {
      i += 1;
      to += 1n;
    }
    events.push(...(await log.readAll({ from, to, limit: Number(to - from) + 1 })));
    i += 1;
  }
  return events;
}

/**
 * Every event that touched a memory or an atom, in log order, with who did it, when and why
 * (correlation and causation), found through the `memory_events` index rather than a log scan.
 * Undefined when no event ever named the id.
 */
export async function historyOf(
  log: EventLog,
  index: HistoryQueries,
  id: string,
  kind?: Subject['kind'],
): Promise<History | undefined> {
  const found = index.positionsOf(id, kind);
  if (!found) return undefined;
  const events = await readPositions(log, found.positions);
  return {
    id,
    kind: found.kind,
    entries: events.map((e) => ({
      position: e.globalPosition,
      streamId: e.streamId,
      type: e.type,
      eventId: e.metadata.eventId,
      occurredAt: e.metadata.occurredAt,
      actor: e.metadata.actor,
      correlationId: e.metadata.correlationId,
      causationId: e.metadata.causationId,
      description: describeEvent(e, id),
    })),
  };
}
