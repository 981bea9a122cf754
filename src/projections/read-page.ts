import { CorruptEventError } from '../events/errors.js';
import type { EventLog, RecordedEvent } from '../events/log/event-log.js';

/** One page of the log; `cut` when it stops short before a corrupt event; `corrupt` when the first event cannot be read. */
export type PageRead = { readonly page: RecordedEvent[]; readonly cut: boolean } | { readonly corrupt: CorruptEventError };

/**
 * Reads a page from `from`. An event that no longer decodes (a damaged or tampered row) is not
 * skipped: the page stops before it, and a read that starts at it reports it, so every read model
 * stops there, marked failed, instead of the whole store failing to open (ADR 23).
 */
export async function readPage(log: EventLog, from: bigint, limit: number, to?: bigint): Promise<PageRead> {
  const upTo = to === undefined ? {} : { to };
  try {
    return { page: await log.readAll({ from, limit, ...upTo }), cut: false };
  } catch (error) {
    if (!(error instanceof CorruptEventError) || error.position < from) throw error;
    if (error.position === from) return { corrupt: error };
    return { page: await log.readAll({ from, limit, to: error.position - 1n }), cut: true };
  }
}
