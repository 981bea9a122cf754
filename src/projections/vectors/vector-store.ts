import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EventLog, RecordedEvent } from '../../events/log/event-log.js';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { createGenerationStore, type Generation } from '../generations.js';
import { memoryVectorFeed, type VectorFeed } from './feed.js';
import { applyVectorPage, emptyGeneration, eraseVectorsInPlace, type VectorGeneration, type VectorSource } from './apply.js';
import { toSnapshot, vectorDigest } from './generation-snapshot.js';
import { createReadWriteLock, createSerialExecutor } from './executor.js';
import { approximateIfDue, closeApproximate, searchVectors, type VectorHit } from './approximate-index.js';
import { createSetAsideLog } from './set-aside.js';
import { indexFileOf, removeSnapshot } from './snapshot.js';
import { writeSnapshotAsync } from './snapshot-async.js';
import { restoreFile, type Restored } from './restore.js';
import { createSnapshotState, lastChangeIn } from './snapshot-state.js';
import type { CorruptEventError } from '../../events/errors.js';
import { describeFailure, isEnvironmental, ProjectionFailedError } from '../failure.js';
import { readPage } from '../read-page.js';
import { rebuildVectors, sharedVectorRebuild, type VectorRebuildContext, type VectorRebuildOptions } from './vector-rebuild.js';

export interface VectorStoreOptions {
  readonly db: SqliteDatabase;
  readonly log: EventLog;
  readonly dir: string;
  readonly source: VectorSource;
  /** Which texts the index holds (default: one vector per memory). */
  readonly feed?: VectorFeed;
  readonly pageSize?: number;
  /** A rebuild's default `persistEvery`. */
  readonly persistEvery?: number;
  /** Flushes are debounced: many small applies, one snapshot. */
  readonly flushDelayMs?: number;
  /** The log's head read synchronously, when the log lives in `db`. */
  readonly lockedHead?: () => bigint;
  /** When a damaged snapshot is set aside (the only clock this store reads). */
  readonly now?: () => Date;
}

/**
 * A FAISS projection (memories, or graph entries, as its feed says). Its rows live in memory and in a snapshot file that carries its own
 * checkpoint, so rows and checkpoint are persisted together; SQLite only records which
 * generation is live.
 */
export function createVectorStore(options: VectorStoreOptions) {
  const { db, log, source } = options;
  const feed = options.feed ?? memoryVectorFeed;
  const projectionName = feed.name;
  const pageSize = options.pageSize ?? 1000;
  mkdirSync(options.dir, { recursive: true });
  const generations = createGenerationStore(db);
  const executor = createSerialExecutor();
  const lock = createReadWriteLock();
  const fileOf = (generation: number): string => join(options.dir, `${projectionName}-g${generation}.snap`);
  const setAsides = createSetAsideLog(db, options.now ?? (() => new Date()));

  const setAside = (generation: number, error: unknown): void =>
    void setAsides.setAside(projectionName, generation, fileOf(generation), error instanceof Error ? error.message : String(error));
  const restore = (generation: number, lazy = false): Restored =>
    restoreFile({ file: fileOf(generation), generation, source, lazy, head: options.lockedHead, setAside: (error) => setAside(generation, error) });
  const load = (gen: Generation): VectorGeneration => restore(gen.generation).gen;
  const liveRow = generations.live(projectionName) ?? db.transaction(() => generations.create(projectionName, 1, 'live')).immediate();
  const opened = restore(liveRow.generation, true);
  let live = opened.gen;
  let liveFingerprint = opened.fingerprint;
  // The live snapshot's index bytes, unread until a command needs a vector (ADR 26): `status` and
  // the other commands that read no vector never read or hash them.
  let unread = opened.unread ?? null;
  let loading: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | null = null;

  // What the snapshot on disk holds against the live index: events that change no vector
  // (accesses, conversations, decays) do not make a CLI call or a tick rewrite the whole index.
  const state = createSnapshotState(db, projectionName, options.lockedHead);
  state.opened(live, opened.legacy === true);
  /** Reads and checks the live index's bytes once; damaged, they are set aside and the log replayed, as at open. */
  const loadLive = (): Promise<void> => {
    if (!unread) return loading;
    unread = null;
    loading = (async () => {
      try {
        live.index.load();
      } catch (error) {
        setAside(live.generation, error);
        live = emptyGeneration(live.generation, source);
        state.opened(live, false);
        liveFingerprint = null;
        await drain(live);
      }
    })();
    return loading;
  };
  const persist = (gen: VectorGeneration): Promise<void> =>
    executor.run(async () => {
      const snapshot = await lock.read(() => toSnapshot(gen, source, indexFileOf(fileOf(gen.generation))));
      await writeSnapshotAsync(fileOf(gen.generation), snapshot);
      state.written(gen.generation, BigInt(snapshot.header.checkpoint));
      const row = generations.get(projectionName, gen.generation);
      if (row) generations.setCheckpoint(row, BigInt(snapshot.header.checkpoint));
    });
  // An untouched index is written from its snapshot's bytes: read (and checked) first.
  const persistLive = async (): Promise<void> => {
    await loadLive();
    await persist(live);
  };
  const stopFlushTimer = (): void => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
  };
  const scheduleFlush = (): void => {
    if (flushTimer) return;
    flushTimer = setTimeout(() => {
      flushTimer = null;
      void persistLive().catch(() => undefined);
    }, options.flushDelayMs ?? 200);
    flushTimer.unref();
  };

  /** Where the live generation stopped at an event it could not apply (ADR 23), or null. */
  // Cached between switches: every search asks it (ADR 23).
  const liveFailure = () => generations.liveFailure(projectionName);
  /**
   * The live generation stops at an event it cannot read or apply, marked failed there; a
   * shadow's rebuild fails instead (the rebuild abandons it), and the live one keeps serving.
   */
  const stopAt = (gen: VectorGeneration, error: unknown, corrupt = false): void => {
    if (gen !== live || isEnvironmental(error)) throw error;
    const row = generations.get(projectionName, gen.generation);
    const position = corrupt ? (error as CorruptEventError).position : gen.checkpoint + 1n;
    if (row) db.transaction(() => generations.markFailed(row, position, describeFailure(error))).immediate();
  };

  /** Reads the log into one generation from its checkpoint; yields between pages. */
  const drain = async (gen: VectorGeneration, to?: bigint): Promise<void> => {
    for (;;) {
      const read = await readPage(log, gen.checkpoint + 1n, pageSize, to);
      if ('corrupt' in read) return stopAt(gen, read.corrupt, true);
      const { page } = read;
      if (page.length === 0) return;
      const changedAt = gen === live ? lastChangeIn(page, gen.checkpoint, feed) : 0n;
      if (changedAt > 0n) state.changedAt(changedAt);
      if (changedAt > 0n && unread) {
        await loadLive();
        // Set aside and replayed from the start by loadLive: this pass has nothing left to do.
        if (gen !== live) return;
      }
      try {
        await lock.write(() => applyVectorPage(gen, page, source, feed));
      } catch (error) {
        return stopAt(gen, error);
      }
      if (page.length < pageSize && !read.cut) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  let catchingUp: Promise<void> = Promise.resolve();
  const withDefaults = (rebuildOptions: VectorRebuildOptions): VectorRebuildOptions =>
    options.persistEvery === undefined ? rebuildOptions : { persistEvery: options.persistEvery, ...rebuildOptions };
  const catchUp = (): Promise<void> => {
    catchingUp = catchingUp.then(async () => {
      if (liveFailure()) return;
      const before = live.checkpoint;
      await drain(live);
      if (live.checkpoint !== before && state.caughtUp(live)) scheduleFlush();
    });
    return catchingUp;
  };

  const rebuildContext: VectorRebuildContext = {
    name: projectionName, db, generations, source, load, drain, persist,
    applyPage: (gen, page) => applyVectorPage(gen, page, source, feed),
    headNow: async () => (options.lockedHead ? options.lockedHead() : log.headPosition()),
    liveIdle: () => catchingUp,
    switchTo: (gen) => {
      const previous = live.generation;
      [live, liveFingerprint] = [gen, source.fingerprint];
      // What the shadow applied after its last snapshot is not known here: clean only once written at or past this point.
      state.changedAt(gen.checkpoint);
      return previous;
    },
    remove: (generation) => removeSnapshot(fileOf(generation)),
  };
  return {
    /** True when the live index was built with another provider or model: only a full rebuild fixes that. */
    fingerprintChanged: (): boolean => liveFingerprint !== null && liveFingerprint !== source.fingerprint,
    /** Where the vectors come from, for a fresh replay to compare with (verify). */
    source,
    feed,
    catchUp,
    failure: liveFailure,
    search: async (query: Float32Array, k: number): Promise<VectorHit[]> => {
      await loadLive();
      const failure = liveFailure();
      if (failure) throw new ProjectionFailedError(projectionName, failure);
      return lock.read(() => searchVectors(live.index, query, k, source.approximate));
    },
    /** The live index's approximate index built now when its size calls for one; false when searches stay exact (the bench). */
    approximateReady: async (): Promise<boolean> => (await loadLive(), approximateIfDue(live.index, source.approximate)),
    /** Reads and checks the live index's bytes now (`start`, `verify`): a damaged snapshot is set aside and replayed. */
    load: loadLive,
    ids: (): readonly string[] => live.index.ids(),
    pending: (): ReadonlyMap<string, string> => live.pending,
    /** The owners (memories) of the pending items, each once. */
    pendingOwners: (): string[] => [...new Set([...live.pending.keys()].map((id) => live.ownerOf.get(id) ?? id))].sort(),
    /** Reads unread index bytes on the spot; damaged ones throw here: call `load()` first to set them aside and replay. */
    digest: (): string => vectorDigest(live),
    /** How far the live index has applied the log (`status().checkpoint` without its queries). */
    checkpoint: (): bigint => live.checkpoint,
    status() {
      const building = generations.building(projectionName);
      return {
        name: projectionName, generation: live.generation, checkpoint: live.checkpoint, size: live.index.size(),
        // Counted by the snapshot's summary until its lists are needed.
        pending: unread ? unread.summary.pendingCount : live.pending.size,
        building: building ? { generation: building.generation, checkpoint: building.checkpoint } : null,
        failed: liveFailure(),
        /** Damaged snapshots set aside and rebuilt from the log, newest first. */
        setAside: setAsides.latest(projectionName),
      };
    },
    flush: (): Promise<void> => (stopFlushTimer(), catchingUp.then(persistLive)),
    // The live snapshot is read first: a damaged one is set aside (kept), not deleted with its generation.
    rebuild: (rebuildOptions: VectorRebuildOptions = {}) => loadLive().then(() => rebuildVectors(rebuildContext, withDefaults(rebuildOptions))),
    /** A rebuild fed the pages of a replay shared with other read models (`writer`); `complete` drains the rest and switches. */
    openRebuild: (rebuildOptions: VectorRebuildOptions = {}) => sharedVectorRebuild(rebuildContext, withDefaults(rebuildOptions)),
    /** An erasure in place (ADR 32), persisted at once; false when the live index cannot take it (failed, or a
     *  shadow a rebuild left may hold the vectors): rebuild it fresh. */
    eraseInPlace: async (erased: readonly RecordedEvent[]): Promise<boolean> => {
      await catchUp();
      await loadLive();
      if (liveFailure() || generations.building(projectionName)) return false;
      await lock.write(() => eraseVectorsInPlace(live, erased, feed));
      state.changedAt(live.checkpoint + 1n);
      await persist(live);
      return true;
    },
    /** Deletes this index's damaged snapshots set aside in its folder; returns their file names. */
    shredSetAsides: (): string[] => setAsides.shred(options.dir, projectionName),
    close: async (): Promise<void> => {
      stopFlushTimer();
      await catchingUp;
      if (state.stale(live)) await persistLive();
      await executor.idle();
      await closeApproximate(live.index);
      unread?.close();
    },
  };
}
export type VectorStore = ReturnType<typeof createVectorStore>;
