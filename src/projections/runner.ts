// Deep imports: the package root loads every operator (about 100 ms of every CLI start).
import type { Subscription } from 'rxjs';
import type { EventLog, RecordedEvent } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { withoutFsync } from '../events/log/durability.js';
import { createGenerationWriter, type GenerationWriter } from './apply.js';
import { projectionDigest } from './digest.js';
import { ProjectionFailedError, RebuildFailedError } from './failure.js';
import { createGenerationStore, generationTable, type Generation, type ProjectionFailure } from './generations.js';
import type { PageWriter } from './page-writer.js';
import { leftoverGenerations } from './drop.js';
import { worthMerging } from './fts-merge.js';
import { createUpkeep } from './upkeep.js';
import { createDrain } from './drain-pages.js';
import { createPacer } from './pacing.js';
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
  /** Awaited before each page a catch-up or replay writes: holds it while the WAL is brought back (checkpoint-worker.ts). */
  readonly walBound?: (patienceMs?: number) => Promise<void>;
}

export interface ProjectionStatus {
  readonly name: string;
  readonly version: number;
  readonly generation: number;
  readonly checkpoint: bigint;
  readonly building: { readonly generation: number; readonly checkpoint: bigint } | null;
  /** The event the live generation stopped at, and why (ADR 23); null while it follows the log. */
  readonly failed: ProjectionFailure | null;
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

  const liveWriter = (p: Projection): GenerationWriter => liveWriterOf(p, store.live(p.name));
  /** The writer of `live`, read just before (the live generation, or none yet: one is made). */
  const liveWriterOf = (p: Projection, live: Generation | undefined): GenerationWriter => {
    if (live) return writerFor(p, live);
    const created = db.transaction(() => store.create(p.name, p.version, 'live')).immediate();
    const writer = writerFor(p, created);
    writer.init();
    return writer;
  };

  // A rebuild replays the log beside recalls: parts of about 10 ms of CPU (issue 17's 50 ms pause).
  // A live catch-up applies what was just written: a few events, or a batch's or an import's pages,
  // in parts of about 25 ms: fewer commits and FTS5 segments to merge (an import 3-8% faster).
  // A live catch-up's small pages (a write's few events) go to every projection in one transaction
  // (each its own savepoint): one commit a write instead of one a projection.
  const inOne = db.transaction((work: () => unknown) => work());
  const together = <T>(work: () => T): T => withoutFsync(db, () => inOne.immediate(work) as T);
  const drainMany = createDrain(log, pageSize, createPacer(25), together, options.walBound);
  const drainRebuild = createDrain(log, pageSize, createPacer(10), undefined, options.walBound);
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  /** Whether every one of `chosen` has a live generation (`lives`, read once) of its version at the log's head. */
  const allAtHead = async (chosen: readonly Projection[], lives: readonly (Generation | undefined)[]): Promise<boolean> => {
    if (lives.some((live, i) => !live || live.version !== chosen[i]?.version)) return false;
    const head = await log.headPosition();
    return lives.every((live) => live !== undefined && live.checkpoint >= head);
  };

  const catchUp = (names?: readonly string[], to?: bigint): Promise<void> =>
    serialized(async () => {
      const chosen = names ? names.map(projection) : projections;
      const livesNow = () => store.lives(chosen.map((p) => p.name));
      let lives = livesNow();
      // A failed generation waits for an explicit rebuild (or start's repairs), not one per catch-up.
      const outdated = chosen.filter((p, i) => {
        const live = lives[i];
        return live && live.version !== p.version && !store.failure(p.name, live.generation);
      });
      for (const p of outdated) await rebuildForVersion(p);
      if (outdated.length > 0) lives = livesNow();
      // At the head already (every CLI call on a current store): one query, and no writer is made.
      if (await allAtHead(chosen, lives)) return;
      // One read of each new page for every projection (a rebuilt one is at the head already).
      const writers = chosen.map((p, i) => liveWriterOf(p, lives[i]));
      await drainMany(writers, to);
      for (const [i, w] of writers.entries()) if (worthMerging(w.checkpoint() - (lives[i]?.checkpoint ?? 0n), w.checkpoint())) upkeep.merge(chosen[i] as Projection, w.generation);
    });

  /**
   * A new version replays the log; when the new code cannot apply an event, the old generation
   * is kept, marked failed at that event, and the store still opens (ADR 23).
   */
  const rebuildForVersion = async (p: Projection): Promise<void> => {
    try {
      await rebuild(p.name, 'version changed');
    } catch (error) {
      if (!(error instanceof RebuildFailedError)) throw error;
      liveWriter(p).fail(error.failure.position, `${error.failure.error} (replaying version ${p.version})`);
    }
  };

  // Retired generations' tables dropped and rebuilt ones' FTS5 tables merged, in slices, off the rebuild's path.
  const upkeep = createUpkeep(db, options.walBound);
  const dropLater = upkeep.drop;
  const mergeRebuilt = (r: RebuildResult): RebuildResult => {
    upkeep.merge(projection(r.projection), r.generation);
    return r;
  };
  const rebuilding = new Map<string, Promise<RebuildResult>>();
  const contextOf = (name: string, reason: string, fresh = false) => {
    const { lockedHead, hooks } = options;
    const p = projection(name);
    // What a stopped process left of a retired generation goes too.
    for (const generation of leftoverGenerations(db, p)) dropLater(p, generation);
    return { db, store, log, projection: p, drain: drainRebuild, reason, hooks, lockedHead, fresh, retired: dropLater };
  };
  const rebuild = (name: string, reason = 'requested'): Promise<RebuildResult> => {
    const inFlight = rebuilding.get(name);
    if (inFlight) return inFlight;
    const run = rebuildProjection(contextOf(name, reason)).then(mergeRebuilt);
    rebuilding.set(name, run);
    return run.finally(() => rebuilding.delete(name));
  };
  /**
   * Rebuilds several projections in one replay of the log (each page read once), after any rebuild
   * of theirs in flight; `fresh` drops a shadow a killed process left instead of resuming it;
   * `alongside` are other writers (vector shadows) fed the same pages until the first switch.
   */
  const rebuildAll = async (names: readonly string[], reason = 'requested', opts: { fresh?: boolean; alongside?: readonly PageWriter[] } = {}): Promise<RebuildResult[]> => {
    await Promise.allSettled(names.map((name) => rebuilding.get(name)));
    const run = rebuildProjections(names.map((name) => contextOf(name, reason, opts.fresh)), drainRebuild, opts.alongside).then((done) => done.map(mergeRebuilt));
    names.forEach((name, i) => {
      const one = run.then((results) => results[i] as RebuildResult);
      // Handled here: only a concurrent rebuild(name) awaits it; the caller gets run's own rejection.
      one.catch(() => undefined);
      rebuilding.set(name, one);
    });
    return run.finally(() => names.forEach((name) => rebuilding.delete(name)));
  };

  /**
   * Applies an erasure in place to every live generation (after a catch-up); returns the names
   * that cannot take it (no in-place erasure, a failed generation, a shadow a rebuild left that may
   * hold the plaintext): those need a fresh rebuild.
   */
  const eraseInPlace = (erased: readonly RecordedEvent[]): Promise<string[]> =>
    serialized(async () => {
      // A retired generation still being dropped may hold the subject's rows: gone first.
      await upkeep.idle();
      await drainMany(projections.map(liveWriter));
      const stale: string[] = [];
      for (const p of projections) {
        if (store.building(p.name) || !liveWriter(p).eraseInPlace(erased)) stale.push(p.name);
      }
      return stale;
    });

  return {
    catchUp,
    eraseInPlace,
    rebuild,
    rebuildAll,
    /** Goes live: every append wakes a catch-up of all projections. */
    async start(): Promise<void> {
      await catchUp();
      if (liveSubscription) return;
      const from = (await log.headPosition()) + 1n;
      // One catch-up per 5 ms burst of appends, by hand: rxjs's auditTime loads ~40 modules (~100 ms of every CLI start).
      let wake: NodeJS.Timeout | null = null;
      const subscription = log.subscribe({ from }).subscribe(() => {
        wake ??= setTimeout(() => {
          wake = null;
          void catchUp().catch(() => undefined);
        }, 5);
      });
      subscription.add(() => wake && clearTimeout(wake));
      liveSubscription = subscription;
    },
    async stop(): Promise<void> {
      liveSubscription?.unsubscribe();
      liveSubscription = null;
      await queue;
      await upkeep.idle();
    },
    /** Resolves once the tables of every retired generation are dropped and the FTS5 tables of replays merged. */
    idle: (): Promise<void> => upkeep.idle(),
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
          failed: live ? (store.failure(p.name, live.generation) ?? null) : null,
        };
      });
    },
    /** Where the live generation of `name` stands (0 without one): `status()` of one, without the rest. */
    checkpoint: (name: string): bigint => store.live(projection(name).name)?.checkpoint ?? 0n,
    /** Where each projection's live generation stands (0 without one), in one query (every write asks, ADR 32). */
    checkpoints: (): bigint[] => store.lives(projections.map((p) => p.name)).map((live) => live?.checkpoint ?? 0n),
    digest(name: string): string {
      const p = projection(name);
      return projectionDigest(db, p, liveWriter(p).generation);
    },
    /** The physical table of the live generation, for read APIs; a failed read model refuses to answer. */
    liveTable(name: string, table: string): string {
      const generation = store.liveNumber(name) ?? liveWriter(projection(name)).generation;
      const failure = store.liveFailure(name);
      if (failure) throw new ProjectionFailedError(name, failure);
      return generationTable(table, generation);
    },
  };
}
export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;
