import { setImmediate } from 'node:timers/promises';

/**
 * Work split so the event loop turns between slices (issue 17). Slices are sized by this process's
 * CPU time, not wall time: on a loaded machine wall time counts other processes' turns, and slices
 * sized by it shrink until their fixed costs (a transaction, a settle) dominate.
 */
export const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * What every paced task together may spend in one pass of the event loop, in ms of wall time. Each
 * slice fits its own budget, but a rebuild runs several paced tasks at once (the projections' pages,
 * two vector shadows, digests, dropped tables): all their slices queued for one pass ran back to
 * back, 40-60 ms with a recall between them (issue 17's event-loop row at 10k).
 */
export const passShareMs = 10;

/** The wall time of one slice of after-the-fact work (a drop, an FTS5 merge) between turns of the loop. */
export const sliceBudgetMs = 8;

let spent = 0;
// When the slice granted last began; null when none is open. Granting one at a time matters: the
// waiters a pass wakes all check the budget before the first of them has run its slice.
let granted: number | null = null;
let reset: Promise<void> | null = null;

/** Resolves at the next timers phase, where the pass's spending starts again from zero. */
const nextPass = (): Promise<void> =>
  (reset ??= new Promise<void>((resolve) =>
    setTimeout(() => {
      spent = 0;
      // A slice still open (its task awaits other I/O) stops holding the others back.
      granted = null;
      reset = null;
      resolve();
    }, 0),
  ));

/**
 * One turn of the event loop, between two slices of paced work. The slice that ends here is
 * counted against the pass; while another slice is open or the pass has spent its share, the
 * caller waits for a later pass, so timers and I/O (a request, a recall) get theirs.
 */
export const turn = async (): Promise<void> => {
  if (granted !== null) spent += performance.now() - granted;
  granted = null;
  if (spent > 0) void nextPass();
  await setImmediate();
  while (spent >= passShareMs || granted !== null) await nextPass();
  granted = performance.now();
};
