import type { EventLog } from '../events/log/event-log.js';
import { RebuildFailedError } from '../projections/failure.js';
import { checkVectors } from '../replay/verify-vectors.js';
import { verifyProjections } from '../replay/verify.js';
import { engineProjections, type Indexes } from './indexes.js';

/** What one start found wrong and rebuilt (or resumed), for `status` and `lmem start`. */
export interface Repair {
  readonly projection: string;
  readonly why: 'interrupted rebuild resumed' | 'differed from a replay of the log' | 'failed the id check' | 'had stopped at an event; replayed';
}

/** Rebuilds that a killed process left `building`, SQLite projections first, all in one replay. */
export function interruptedShadows(indexes: Indexes): { sqlite: string[]; vectors: boolean } {
  return {
    sqlite: indexes.runner.status().filter((s) => s.building !== null).map((s) => s.name),
    vectors: indexes.vectors.status().building !== null || indexes.graphVectors.status().building !== null,
  };
}

/**
 * The check `verify` makes, run by `start`: every SQLite projection's digest against a replay of
 * the log into memory, and both vector indexes against a fresh replay. Returns what differs; a
 * projection that could not be compared (its checkpoint moved meanwhile) is left for the next run.
 */
export async function projectionsUnlikeTheirReplay(log: EventLog, indexes: Indexes, signal: AbortSignal): Promise<{ sqlite: string[]; vectors: boolean }> {
  const checks = await verifyProjections(log, indexes.runner, engineProjections, signal);
  const sqlite = checks.filter((c) => c.status === 'mismatch').map((c) => c.name);
  if (signal.aborted) return { sqlite, vectors: false };
  const vectors = [await checkVectors(log, indexes.vectors), await checkVectors(log, indexes.graphVectors)];
  return { sqlite, vectors: vectors.some((c) => c.status === 'mismatch') };
}

/**
 * Replays each read model that stopped at an event (ADR 23), one at a time so one that still
 * fails leaves the others repaired: after a fix, `start` recovers it like `rebuild` does.
 * Returns the ones replayed and the ones still failed.
 */
export async function replayFailed(indexes: Indexes): Promise<{ replayed: string[]; stillFailed: string[] }> {
  const replayed: string[] = [];
  const stillFailed: string[] = [];
  for (const { name } of indexes.runner.status().filter((s) => s.failed !== null)) {
    try {
      await indexes.runner.rebuild(name, 'stopped at an event');
      replayed.push(name);
    } catch (error) {
      if (!(error instanceof RebuildFailedError)) throw error;
      stillFailed.push(name);
    }
  }
  return { replayed, stillFailed };
}
