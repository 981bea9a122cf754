import type { EventLog } from '../events/log/event-log.js';
import type { PageWriter } from './page-writer.js';
import type { Pacer } from './pacing.js';

/**
 * Reads each page of the log once and applies it to every writer, from the one furthest behind,
 * until all reach `to` (or the head). A writer that fails on an event (or on a corrupt one it
 * cannot read) stops there, marked failed; the others go on. `beforePage` may hold the next page
 * (the WAL's bound, ADR 32).
 */
export function createDrain(log: EventLog, pageSize: number, pacer: Pacer, together?: <T>(work: () => T) => T, beforePage?: () => Promise<void>) {
  return async (writers: readonly PageWriter[], to?: bigint): Promise<void> => {
    let active = writers.filter((w) => w.failure() === null);
    while (active.length > 0) {
      await beforePage?.();
      // Each writer's checkpoint is a query: read once a page.
      const from = active.map((w) => w.checkpoint()).reduce((low, c) => (c < low ? c : low)) + 1n;
      const read = await pacer.read(log, from, pageSize, to);
      if ('corrupt' in read) {
        const { position, message } = read.corrupt;
        for (const w of active) if (w.checkpoint() < position) w.fail(position, `CorruptEventError: ${message}`);
        active = active.filter((w) => w.failure() === null);
        continue;
      }
      if (read.page.length === 0) return;
      // A writer whose generation was retired or failed meanwhile takes no more pages.
      // A small page (a write's few events) goes to all of them in one transaction, not one each.
      let taking = together ? await pacer.applyTogether(active, read.page, together) : null;
      if (taking === null) {
        taking = [];
        for (const w of active) if (await pacer.apply(w, read.page)) taking.push(w);
      }
      active = taking;
      if (read.page.length < pageSize && !read.cut) return;
    }
  };
}
