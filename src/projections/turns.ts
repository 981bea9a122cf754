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

/** One turn of the event loop. */
export const turn = (): Promise<void> => setImmediate();
