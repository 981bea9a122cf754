import type { EventLog, RecordedEvent } from '../events/log/event-log.js';
import type { PageWriter } from './page-writer.js';
import { byteCost, typeCost } from './part-cost.js';
import { readPage, type PageRead } from './read-page.js';
import { cpuMs, turn } from './turns.js';

/**
 * The event loop's share of a replay (issue 17: no pause over 50 ms while recalls run): a page is
 * read and applied in parts, each about `budgetMs` of CPU, with a turn of the loop in between.
 * Reads are sized by the events' stored bytes (when the log tells them), applies by what each
 * event type cost that writer (part-cost.ts). Pages stay large (a projection's settle and a vector
 * page's look-ups are per part, so per page of a cheap read model); only costly ones split theirs.
 */
export interface Pacer {
  /** Reads a page of up to `limit` events in parts. */
  read(log: EventLog, from: bigint, limit: number, to?: bigint): Promise<PageRead>;
  /** Applies the page's events after the writer's checkpoint in parts; false when it takes no more pages. */
  apply(writer: PageWriter, page: readonly RecordedEvent[]): Promise<boolean>;
  /**
   * Applies the page to every writer in one part, inside `together` (one transaction), when their
   * measured costs say it fits the budget; the writers still taking pages, or null when it does not fit.
   */
  applyTogether(writers: readonly PageWriter[], page: readonly RecordedEvent[], together: <T>(work: () => T) => T): Promise<PageWriter[] | null>;
}

/** Stored sizes of the next `limit` events, or as many of 64 bytes when the log cannot tell (parts then go by count). */
async function sizesOf(log: EventLog, from: bigint, limit: number, to?: bigint): Promise<number[]> {
  const range = { from, limit, ...(to === undefined ? {} : { to }) };
  return log.storedSizes ? log.storedSizes(range) : new Array<number>(limit).fill(64);
}

export function createPacer(budgetMs = 10): Pacer {
  const reading = byteCost();
  const applying = new WeakMap<PageWriter, ReturnType<typeof typeCost>>();
  let togetherParts = 0;
  const costOf = (writer: PageWriter) => {
    let cost = applying.get(writer);
    if (!cost) applying.set(writer, (cost = typeCost()));
    return cost;
  };
  return {
    async read(log, from, limit, to) {
      const page: RecordedEvent[] = [];
      const sizes = await sizesOf(log, from, limit, to);
      // Nothing stored there (yet): one read says so, as before.
      if (sizes.length === 0) sizes.push(64);
      let at = 0;
      for (;;) {
        await turn();
        const want = reading.fit(sizes, at, budgetMs);
        const started = cpuMs();
        const read = await readPage(log, from, want, to);
        if ('corrupt' in read) return page.length > 0 ? { page, cut: true } : read;
        reading.took(cpuMs() - started, sizes.slice(at, at + read.page.length).reduce((a, b) => a + b, 0));
        page.push(...read.page);
        at += read.page.length;
        const last = read.page.at(-1);
        if (read.cut) return { page, cut: true };
        if (!last || read.page.length < want || page.length >= limit || at >= sizes.length) return { page, cut: false };
        from = last.globalPosition + 1n;
      }
    },
    async applyTogether(writers, page, together) {
      const estimates = writers.map((w) => costOf(w).estimate(page));
      if (estimates.some((e) => e === null)) return null;
      const predicted = (estimates as number[]).reduce((a, b) => a + b, 0);
      if (predicted > budgetMs) return null;
      await turn();
      // Measured one time in eight: process.cpuUsage() sums every thread's time (tens of µs a call
      // here, more while the faiss and sync threads run), about 4% of a write when called around each part.
      const measured = (togetherParts += 1) % 8 === 1;
      const started = measured ? cpuMs() : 0;
      const taking = together(() => writers.filter((w) => w.applyPage(page) !== null));
      if (!measured) return taking;
      const took = cpuMs() - started;
      // Each writer's share of the part, as predicted: estimates keep following what pages cost.
      writers.forEach((w, i) => costOf(w).took(predicted > 0 ? (took * (estimates[i] as number)) / predicted : took / writers.length, page));
      return taking;
    },
    async apply(writer, page) {
      const cost = costOf(writer);
      let at = page.findIndex((e) => e.globalPosition > writer.checkpoint());
      // Nothing new for it: still asked, so a retired or failed writer says so.
      if (at < 0) return writer.applyPage([]) !== null;
      // Every part starts on a new turn of the loop.
      while (at < page.length) {
        await turn();
        const part = page.slice(at, at + cost.fit(page, at, budgetMs));
        const started = cpuMs();
        if (writer.applyPage(part) === null) return false;
        cost.took(cpuMs() - started, part);
        at += part.length;
      }
      return true;
    },
  };
}
