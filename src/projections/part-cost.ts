import type { RecordedEvent } from '../events/log/event-log.js';

/*
 * Cost models that size the parts of a replay (pacing.ts). One event can cost a hundred times
 * another (a lifecycle tick's MemoryImportanceDecayed holds hundreds of decays, an access a
 * handful of rows), so a part sized by the average event overshot its budget several times over
 * whenever it reached a run of heavy ones (issue 17: parts of 80-100 ms at 10k memories).
 */

/** The first part, before anything was measured. */
const firstPart = 64;

/** How many of `costs` (estimated ms, from `at`) fit `budgetMs`: at least one, since one event cannot be split. */
function fitting(count: number, cost: (i: number) => number, budgetMs: number): number {
  let sum = 0;
  let n = 0;
  while (n < count) {
    sum += cost(n);
    if (n > 0 && sum > budgetMs) break;
    n += 1;
  }
  return n;
}

const smooth = (was: number | null | undefined, now: number): number => (was == null ? now : 0.5 * was + 0.5 * now);

/** Decoding costs about the same per stored byte, whatever the event: learnt in ms per byte. */
export function byteCost() {
  let perByte: number | null = null;
  return {
    /** How many events, of stored sizes `sizes[at..]`, fit `budgetMs`. */
    fit(sizes: readonly number[], at: number, budgetMs: number): number {
      const left = sizes.length - at;
      if (perByte === null) return Math.min(left, firstPart);
      const rate = perByte;
      return fitting(left, (i) => (sizes[at + i] as number) * rate, budgetMs);
    },
    took(ms: number, bytes: number): void {
      perByte = smooth(perByte, ms / Math.max(1, bytes));
    },
  };
}

/** Applying costs what the event's type costs this writer: learnt in ms per event of each type. */
export function typeCost() {
  const perType = new Map<string, number>();
  let average: number | null = null;
  const estimate = (type: string): number => perType.get(type) ?? average ?? 0;
  return {
    /** How many of `events[at..]` fit `budgetMs`. */
    fit(events: readonly RecordedEvent[], at: number, budgetMs: number): number {
      const left = events.length - at;
      if (average === null) return Math.min(left, firstPart);
      return fitting(left, (i) => estimate((events[at + i] as RecordedEvent).type), budgetMs);
    },
    /** A part took `ms`: each of its types' estimates is scaled by how far the part's prediction was off. */
    took(ms: number, part: readonly RecordedEvent[]): void {
      const predicted = part.reduce((sum, e) => sum + estimate(e.type), 0);
      const perEvent = ms / Math.max(1, part.length);
      for (const type of new Set(part.map((e) => e.type))) {
        const now = predicted > 0 ? estimate(type) * (ms / predicted) : perEvent;
        perType.set(type, smooth(perType.get(type), now));
      }
      average = smooth(average, perEvent);
    },
  };
}
