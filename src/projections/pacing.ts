import type { EventLog, RecordedEvent } from '../events/log/event-log.js';
import type { PageWriter } from './page-writer.js';
import { readPage, type PageRead } from './read-page.js';

/**
 * The event loop's share of a replay (issue 17: no pause over 50 ms while recalls run): a page is
 * read and applied in parts, each about `budgetMs` of CPU, with a turn of the loop in
 * between. Pages stay large (a projection's settle and a vector page's look-ups are per part, so
 * per page of a cheap read model); only the costly ones (decoding, the graph) split theirs.
 */
export interface Pacer {
  /** Reads a page of up to `limit` events in parts. */
  read(log: EventLog, from: bigint, limit: number, to?: bigint): Promise<PageRead>;
  /** Applies the page's events after the writer's checkpoint in parts; false when it takes no more pages. */
  apply(writer: PageWriter, page: readonly RecordedEvent[]): Promise<boolean>;
}

// CPU time, not wall time: on a loaded machine wall time counts other processes' turns, and parts
// sized by it shrink until their fixed costs (a transaction, a settle) dominate.
const now = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** How many events fit the budget, from what the last parts cost (ms per event, smoothed). */
function partSizer(budgetMs: number, smallest: number) {
  let perEvent: number | null = null;
  return {
    size: (left: number): number => (perEvent === null ? Math.min(left, 64) : Math.max(smallest, Math.min(left, Math.floor(budgetMs / perEvent)))),
    took(ms: number, events: number): void {
      const observed = ms / Math.max(1, events);
      perEvent = perEvent === null ? observed : 0.5 * perEvent + 0.5 * observed;
    },
  };
}

export function createPacer(budgetMs = 20): Pacer {
  const reading = partSizer(budgetMs, 16);
  const applying = new WeakMap<PageWriter, ReturnType<typeof partSizer>>();
  return {
    async read(log, from, limit, to) {
      const page: RecordedEvent[] = [];
      for (;;) {
        await turn();
        const want = reading.size(limit - page.length);
        const started = now();
        const read = await readPage(log, from, want, to);
        if ('corrupt' in read) return page.length > 0 ? { page, cut: true } : read;
        reading.took(now() - started, read.page.length);
        page.push(...read.page);
        const last = read.page.at(-1);
        if (read.cut) return { page, cut: true };
        if (!last || read.page.length < want || page.length >= limit) return { page, cut: false };
        from = last.globalPosition + 1n;
      }
    },
    async apply(writer, page) {
      let sizer = applying.get(writer);
      if (!sizer) applying.set(writer, (sizer = partSizer(budgetMs, 8)));
      let at = page.findIndex((e) => e.globalPosition > writer.checkpoint());
      // Every part starts on a new turn of the loop.
      // Nothing new for it: still asked, so a retired or failed writer says so.
      if (at < 0) return writer.applyPage([]) !== null;
      while (at < page.length) {
        await turn();
        const part = page.slice(at, at + sizer.size(page.length - at));
        const started = now();
        if (writer.applyPage(part) === null) return false;
        sizer.took(now() - started, part.length);
        at += part.length;
      }
      return true;
    },
  };
}
