import type { RecordedEvent } from '../events/log/event-log.js';

/*
 * Cost models that size the parts of a replay (pacing.ts). One event can cost a hundred times
 * another (a lifecycle tick's MemoryImportanceDecayed holds hundreds of decays, an access a
 * handful of rows), so a part sized by the average event overshot its budget several times over
 * whenever it reached a run of heavy ones (issue 17: parts of 80-100 ms at 10k memories).
 */

/**
 * Stored bytes decoded a millisecond, assumed until measured: sealed events decode at about 3-4 KB/ms
 * here (AES-GCM, key derivation, validation), clear ones at about 20; the first part of a replay
 * assumed 16 and took 50-70 ms of a sealed store's events.
 */
const firstBytes = 3 * 1024;

/**
 * How many of the events from `at` fit `budgetMs` by their estimated costs (ms; null: not measured
 * yet): at least one, since one event cannot be split. An event not measured yet is a part of its
 * own, so its cost is learnt exactly before it can weigh on a larger part.
 */
function fitting(count: number, cost: (i: number) => number | null, budgetMs: number): number {
  let sum = 0;
  let n = 0;
  while (n < count) {
    const one = cost(n);
    if (one === null) return n === 0 ? 1 : n;
    sum += one;
    if (n > 0 && sum > budgetMs) break;
    n += 1;
  }
  return n;
}

// Up at once, down by halves: a run of heavier events (sealed after clear ones) overshot for several parts while the estimate crept up.
const smooth = (was: number | null | undefined, now: number): number => (was == null || now > was ? now : 0.5 * was + 0.5 * now);

/** Decoding costs about the same per stored byte, whatever the event: learnt in ms per byte. */
export function byteCost() {
  let perByte: number | null = null;
  return {
    /** How many events, of stored sizes `sizes[at..]`, fit `budgetMs`. */
    fit(sizes: readonly number[], at: number, budgetMs: number): number {
      const rate = perByte ?? 1 / firstBytes;
      // The first part also pays for cold code and each key's first derivation: a quarter of the budget.
      return fitting(sizes.length - at, (i) => (sizes[at + i] as number) * rate, perByte === null ? budgetMs / 4 : budgetMs);
    },
    took(ms: number, bytes: number): void {
      perByte = smooth(perByte, ms / Math.max(1, bytes));
    },
  };
}

/** Applying costs what the event's type costs this writer: learnt in ms per event of each type. */
export function typeCost() {
  const perType = new Map<string, number>();
  const estimate = (type: string): number => perType.get(type) ?? 0;
  return {
    /** How many of `events[at..]` fit `budgetMs`. */
    fit(events: readonly RecordedEvent[], at: number, budgetMs: number): number {
      return fitting(events.length - at, (i) => perType.get((events[at + i] as RecordedEvent).type) ?? null, budgetMs);
    },
    /** What `events` are estimated to cost, or null while any of their types is not measured yet. */
    estimate(events: readonly RecordedEvent[]): number | null {
      let sum = 0;
      for (const e of events) {
        const one = perType.get(e.type);
        if (one === undefined) return null;
        sum += one;
      }
      return sum;
    },
    /** A part took `ms`: each of its types' estimates is scaled by how far the part's prediction was off. */
    took(ms: number, part: readonly RecordedEvent[]): void {
      const predicted = part.reduce((sum, e) => sum + estimate(e.type), 0);
      const perEvent = ms / Math.max(1, part.length);
      for (const type of new Set(part.map((e) => e.type))) {
        const now = predicted > 0 ? estimate(type) * (ms / predicted) : perEvent;
        perType.set(type, smooth(perType.get(type), now));
      }
    },
  };
}
