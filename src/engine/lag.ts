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
 * events are counted, not the positions subtracted: one read from the lowest checkpoint serves every
 * model it counts whole; a model ahead of a full page is counted again from its own checkpoint.
 */
export async function readModelLag(log: EventLog, checkpoints: readonly bigint[], now: Date): Promise<(Lag | undefined)[]> {
  if (checkpoints.length === 0) return [];
  const low = checkpoints.reduce((a, b) => (b < a ? b : a));
  // Read as the read models read: an event that no longer decodes ends the count, it does not fail it (ADR 23).
  const read = await readPage(log, low + 1n, lagCap);
  if ('corrupt' in read) return checkpoints.map(() => undefined);
  const pending = read.page;
  const full = pending.length === lagCap;
  const lags: (Lag | undefined | null)[] = checkpoints.map((checkpoint) => {
    const behind = pending.filter((e) => e.globalPosition > checkpoint);
    // Past a full page there may be more of its events than this page holds: not counted whole yet.
    if (full && behind.length < lagCap) return null;
    const first = behind[0];
    return { events: behind.length, capped: full, ms: first ? Math.max(0, now.getTime() - Date.parse(first.metadata.occurredAt)) : 0 };
  });
  const ahead = checkpoints.filter((_, i) => lags[i] === null);
  const counted = await readModelLag(log, ahead, now);
  return lags.map((lag) => (lag === null ? counted.shift() : lag));
}
