import type { RecordedEvent } from '../../events/log/event-log.js';
import { erasedPositions } from '../../events/log/sealing/key-index.js';
import { streams } from '../../events/streams.js';
import type { ErasureDeps, ErasureStep } from './steps.js';

/** Consecutive positions as [from, to] runs: a memory's events are appended together, so few reads. */
function runsOf(positions: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const p of positions) {
    const last = runs.at(-1);
    if (last && last[1] + 1 === p) last[1] = p;
    else runs.push([p, p]);
  }
  return runs;
}

/**
 * The events the erasure's destroyed keys sealed, as they read now (content erased), in position
 * order; null when the log is not in this file (EventStoreDB): the caller replays instead.
 */
export async function erasedEvents(deps: ErasureDeps, erasureId: string): Promise<RecordedEvent[] | null> {
  if (deps.log.kind !== 'sqlite') return null;
  const erasure = (await deps.log.readStream(streams.erasures)).find((e) => e.type === 'SubjectErased' && e.data.erasureId === erasureId);
  if (erasure?.type !== 'SubjectErased') throw new Error(`erasure ${erasureId} has no SubjectErased to apply`);
  if (erasure.data.keyIds.length === 0) return [];
  // Only what this erasure made unreadable: an event another destroyed key sealed too read as
  // erased already, and the read models took that in place then (or replayed it).
  const positions = erasedPositions(deps.db, erasure.data.keyIds);
  const out: RecordedEvent[] = [];
  for (const [from, to] of runsOf(positions)) {
    out.push(...(await deps.log.readAll({ from: BigInt(from), to: BigInt(to), limit: to - from + 1 })));
  }
  return out;
}

/**
 * Each read model applies the erasure in place (ADR 32): its rows from the subject's events become
 * what a replay of the log makes of them, at a cost that grows with the subject's events, not the
 * store. What cannot take it in place (a failed model, a shadow left by a killed rebuild, a log in
 * EventStoreDB) is rebuilt fresh, as `rebuild-read-models` does for every model.
 */
export function inPlaceStep(replay: ErasureStep, pause: (point: string) => Promise<void>): ErasureStep {
  return {
    name: 'erase-read-models',
    async run(deps, run) {
      const erased = await erasedEvents(deps, run.process.erasureId);
      if (erased === null) return replay.run(deps, run);
      deps.invalidate();
      const { runner, vectors, graphVectors } = deps.indexes;
      const stale = await runner.eraseInPlace(erased);
      if (stale.length > 0) await runner.rebuildAll(stale, `subject ${run.process.subject.kind} erased`, { fresh: true });
      await pause('erase-read-models:midway');
      for (const store of [vectors, graphVectors]) {
        if (!(await store.eraseInPlace(erased))) {
          const result = await store.rebuild({ maxFailureRatio: 1, fresh: true });
          if (result.status !== 'completed') throw new Error(`the ${store.feed.name} rebuild did not complete: ${result.status}`);
        }
        store.shredSetAsides();
      }
      await deps.indexes.catchUp();
      deps.invalidate();
    },
  };
}
