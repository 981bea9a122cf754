import { localDate } from '../../commands/lifecycle/calendar.js';
import type { TickReceipt } from './tick.js';

/** What `lmem tick [--at ISO]` did: every missed date up to `at`, in order, as the scheduler's catch-up ticks them. */
export interface ManualTickReceipt {
  /** The instant asked for, and the zone's date at it. */
  readonly at: string;
  readonly date: string;
  /** The dates ticked by this call, in order (none when they were all ticked already). */
  readonly ticks: readonly TickReceipt[];
  readonly decayed: number;
  readonly atomTransitions: number;
  readonly policy: number;
  /** The last date ticked, after this call. */
  readonly lastTickedDate: string | null;
  /** The next date to tick and the instant its tick hour comes. */
  readonly next: { readonly date: string; readonly at: string } | null;
  /**
   * Why nothing was appended: an empty log; `at` falls on a date before the last tick; or every
   * date whose tick hour had come by `at` was ticked already (the next one's hour is after `at`).
   */
  readonly nothing: 'empty-store' | 'before-last-tick' | 'not-due' | null;
}

export interface ManualTickInputs {
  readonly at: Date;
  readonly timeZone: string;
  readonly ticks: readonly TickReceipt[];
  readonly lastTickedDate: string | null;
  readonly next: { readonly date: string; readonly at: Date } | null;
}

/** The receipt of a manual tick, from what the catch-up ticked and where the store's ticks stand after it. */
export function manualTickReceipt(input: ManualTickInputs): ManualTickReceipt {
  const date = localDate(input.at, input.timeZone);
  const ticked = input.ticks.filter((t) => t.ticked);
  const sum = (key: 'decayed' | 'atomTransitions' | 'policy') => ticked.reduce((n, t) => n + t[key], 0);
  const last = input.lastTickedDate;
  const nothing = ticked.length > 0 ? null : input.next === null ? 'empty-store' : last !== null && date < last ? 'before-last-tick' : 'not-due';
  return {
    at: input.at.toISOString(),
    date,
    ticks: ticked,
    decayed: sum('decayed'),
    atomTransitions: sum('atomTransitions'),
    policy: sum('policy'),
    lastTickedDate: last,
    next: input.next ? { date: input.next.date, at: input.next.at.toISOString() } : null,
    nothing,
  };
}
