import type { EventLog } from '../events/log/event-log.js';
import { readPage } from '../projections/read-page.js';

export interface Lag {
  /** Events of the log after the checkpoint (counted up to `lagCap`; `capped` when there are more). */
  readonly events: number;
  readonly capped: boolean;
  /** How long ago the oldest of them happened, by its `occurredAt` and the engine's clock; 0 when caught up. */
  readonly ms: number;
}

const lagCap = 1000;

/**
 * How far each read model is behind the log. Positions have gaps on a shared log (ADR 27), so the
 * events are counted, not the positions subtracted: one read from the lowest checkpoint serves all.
 */
export async function readModelLag(log: EventLog, checkpoints: readonly bigint[], now: Date): Promise<(Lag | undefined)[]> {
  if (checkpoints.length === 0) return [];
  const low = checkpoints.reduce((a, b) => (b < a ? b : a));
  // Read as the read models read: an event that no longer decodes ends the count, it does not fail it (ADR 23).
  const read = await readPage(log, low + 1n, lagCap);
  if ('corrupt' in read) return checkpoints.map(() => undefined);
  const pending = read.page;
  const capped = pending.length === lagCap;
  return checkpoints.map((checkpoint) => {
    const behind = pending.filter((e) => e.globalPosition > checkpoint);
    const first = behind[0];
    return { events: behind.length, capped: capped && behind.length === pending.length, ms: first ? Math.max(0, now.getTime() - Date.parse(first.metadata.occurredAt)) : 0 };
  });
}
