// Deep imports: the package root loads every operator (about 100 ms of every CLI start).
import { auditTime } from 'rxjs/internal/operators/auditTime';
import type { Subscription } from 'rxjs';
import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { createGenerationWriter, type GenerationWriter } from './apply.js';
import { projectionDigest } from './digest.js';
import { createGenerationStore, generationTable, type Generation } from './generations.js';
import type { Projection } from './projection.js';
import { rebuildProjection, rebuildProjections, type RebuildHooks, type RebuildResult } from './rebuild.js';

export interface ProjectionRunnerOptions {
  readonly db: SqliteDatabase;
  readonly log: EventLog;
  readonly projections: readonly Projection[];
  readonly pageSize?: number;
  /** The log's head read under the write lock, when the log lives in `db`: makes the rebuild switch exact. */
  readonly lockedHead?: () => bigint;
  readonly hooks?: RebuildHooks;
}

export interface ProjectionStatus {
  readonly name: string;
  readonly version: number;
  readonly generation: number;
  readonly checkpoint: bigint;
  readonly building: { readonly generation: number; readonly checkpoint: bigint } | null;
}

/** Keeps every projection caught up with the log: pull-based catch-up, woken by the log's subscription. */
export function createProjectionRunner(options: ProjectionRunnerOptions) {
  const { db, log, projections } = options;
  const pageSize = options.pageSize ?? 1000;
  const store = createGenerationStore(db);
  const byName = new Map(projections.map((p) => [p.name, p]));
  const writers = new Map<string, GenerationWriter>();
  let queue: Promise<void> = Promise.resolve();
  let liveSubscription: Subscription | null = null;

  const projection = (name: string): Projection => {
    const found = byName.get(name);
    if (!found) throw new Error(`unknown projection ${name}; known: ${[...byName.keys()].join(', ')}`);
    return found;
  };

  const writerFor = (p: Projection, gen: Generation): GenerationWriter => {
    const cached = writers.get(p.name);
    if (cached?.generation === gen.generation) return cached;
    const writer = createGenerationWriter(db, store, p, gen);
    writers.set(p.name, writer);
    return writer;
  };

  const liveWriter = (p: Projection): GenerationWriter => {
    const live = store.live(p.name);
    if (live) return writerFor(p, live);
    const created = db.transaction(() => store.create(p.name, p.version, 'live')).immediate();
    const writer = writerFor(p, created);
    writer.init();
    return writer;
  };

  /**
   * Reads each page of the log once and applies it to every writer, from the one furthest behind,
   * until all reach `to` (or the head).
   */
  const drainMany = async (writers: readonly GenerationWriter[], to?: bigint): Promise<void> => {
    let active = [...writers];
    while (active.length > 0) {
      const from = active.reduce((low, w) => (w.checkpoint() < low ? w.checkpoint() : low), active[0]?.checkpoint() ?? 0n) + 1n;
      const page = await log.readAll({ from, limit: pageSize, ...(to === undefined ? {} : { to }) });
      if (page.length === 0) return;
      // A writer whose generation was retired or failed meanwhile takes no more pages.
      active = active.filter((w) => w.applyPage(page) !== null);
      if (page.length < pageSize) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  const catchUp = (names?: readonly string[], to?: bigint): Promise<void> =>
    serialized(async () => {
      const chosen = names ? names.map(projection) : projections;
      for (const p of chosen) {
        if (store.live(p.name) && store.live(p.name)?.version !== p.version) await rebuild(p.name, 'version changed');
      }
      // One read of each new page for every projection (a rebuilt one is at the head already).
      await drainMany(chosen.map(liveWriter), to);
    });

  const rebuilding = new Map<string, Promise<RebuildResult>>();
  const contextOf = (name: string, reason: string, fresh = false) => {
    const { lockedHead, hooks } = options;
    return { db, store, log, projection: projection(name), drain: drainMany, reason, hooks, lockedHead, fresh };
  };
  const rebuild = (name: string, reason = 'requested'): Promise<RebuildResult> => {
    const inFlight = rebuilding.get(name);
    if (inFlight) return inFlight;
    const run = rebuildProjection(contextOf(name, reason));
    rebuilding.set(name, run);
    return run.finally(() => rebuilding.delete(name));
  };
  /**
   * Rebuilds several projections in one replay of the log (each page read once), after any rebuild
   * of theirs in flight; `fresh` drops a shadow a killed process left instead of resuming it.
   */
  const rebuildAll = async (names: readonly string[], reason = 'requested', opts: { fresh?: boolean } = {}): Promise<RebuildResult[]> => {
    await Promise.allSettled(names.map((name) => rebuilding.get(name)));
    const run = rebuildProjections(names.map((name) => contextOf(name, reason, opts.fresh)), drainMany);
    names.forEach((name, i) => {
      const one = run.then((results) => results[i] as RebuildResult);
      // Handled here: only a concurrent rebuild(name) awaits it; the caller gets run's own rejection.
      one.catch(() => undefined);
      rebuilding.set(name, one);
    });
    return run.finally(() => names.forEach((name) => rebuilding.delete(name)));
  };

  return {
    catchUp,
    rebuild,
    rebuildAll,
    /** Goes live: every append wakes a catch-up of all projections. */
    async start(): Promise<void> {
      await catchUp();
      if (liveSubscription) return;
      const from = (await log.headPosition()) + 1n;
      liveSubscription = log.subscribe({ from }).pipe(auditTime(5)).subscribe(() => void catchUp().catch(() => undefined));
    },
    async stop(): Promise<void> {
      liveSubscription?.unsubscribe();
      liveSubscription = null;
      await queue;
    },
    status(): ProjectionStatus[] {
      return projections.map((p) => {
        const live = store.live(p.name);
        const building = store.building(p.name);
        return {
          name: p.name,
          version: p.version,
          generation: live?.generation ?? 0,
          checkpoint: live?.checkpoint ?? 0n,
          building: building ? { generation: building.generation, checkpoint: building.checkpoint } : null,
        };
      });
    },
    digest(name: string): string {
      const p = projection(name);
      return projectionDigest(db, p, liveWriter(p).generation);
    },
    /** The physical table of the live generation, for read APIs. */
    liveTable(name: string, table: string): string {
      return generationTable(table, store.liveNumber(name) ?? liveWriter(projection(name)).generation);
    },
  };
}

export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;
