import { auditTime, type Subscription } from 'rxjs';
import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { createGenerationWriter, type GenerationWriter } from './apply.js';
import { projectionDigest } from './digest.js';
import { createGenerationStore, generationTable, type Generation } from './generations.js';
import type { Projection } from './projection.js';
import { rebuildProjection, type RebuildHooks, type RebuildResult } from './rebuild.js';

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

  /** Reads the log page by page into one generation until `to` (or the head) is reached. */
  const drain = async (writer: GenerationWriter, to?: bigint): Promise<bigint> => {
    for (;;) {
      const from = writer.checkpoint() + 1n;
      const page = await log.readAll({ from, limit: pageSize, ...(to === undefined ? {} : { to }) });
      if (page.length === 0) return writer.checkpoint();
      if (writer.applyPage(page) === null || page.length < pageSize) return writer.checkpoint();
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
      for (const p of names ? names.map(projection) : projections) {
        if (store.live(p.name) && store.live(p.name)?.version !== p.version) await rebuild(p.name, 'version changed');
        else await drain(liveWriter(p), to);
      }
    });

  const rebuilding = new Map<string, Promise<RebuildResult>>();
  const rebuild = (name: string, reason = 'requested'): Promise<RebuildResult> => {
    const inFlight = rebuilding.get(name);
    if (inFlight) return inFlight;
    const { lockedHead, hooks } = options;
    const run = rebuildProjection({ db, store, log, projection: projection(name), drain, reason, hooks, lockedHead });
    rebuilding.set(name, run);
    return run.finally(() => rebuilding.delete(name));
  };

  return {
    catchUp,
    rebuild,
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
