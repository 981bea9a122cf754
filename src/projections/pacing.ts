import { performance } from 'node:perf_hooks';

/** How long one page of a catch-up or rebuild may hold the event loop, in milliseconds (ADR 32). */
export const pageSliceMs = 20;
const smallestPage = 16;

/**
 * Sizes the pages of one drain of the log so that reading and applying a page takes about
 * `sliceMs`: a page is applied in one synchronous transaction, and the event loop serves nothing
 * else meanwhile (a recall, an HTTP request). The size starts small, grows at most twofold a page
 * while pages are quick, and shrinks at once after a slow one; never above `maxPage`. Pages only
 * group events: what a projection makes of the log does not depend on where a page ends.
 */
export function createPagePacer(maxPage: number, sliceMs = pageSliceMs) {
  let limit = Math.min(maxPage, 64);
  let started = 0;
  return {
    /** The number of events to read next. */
    limit: (): number => limit,
    begin(): void {
      started = performance.now();
    },
    /** After the page: the next one's size from how long this one took. */
    end(): void {
      const took = Math.max(0.1, performance.now() - started);
      limit = Math.max(Math.min(smallestPage, maxPage), Math.min(maxPage, limit * 2, Math.floor((limit * sliceMs) / took)));
    },
  };
}
