import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EventLog, RecordedEvent } from '../../events/log/event-log.js';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { createGenerationStore, type Generation } from '../generations.js';
import { memoryVectorFeed, type VectorFeed } from './feed.js';
import { applyVectorPage, emptyGeneration, eraseVectorsInPlace, restoreGeneration, toSnapshot, vectorDigest, type VectorGeneration, type VectorSource } from './apply.js';
import { createReadWriteLock, createSerialExecutor } from './executor.js';
import type { VectorHit } from './flat-index.js';
import { createSetAsideLog } from './set-aside.js';
import { readSnapshot, removeSnapshot, writeSnapshotAsync } from './snapshot.js';
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

  /**
   * The generation's snapshot, or an empty generation when there is none or it cannot be trusted:
   * a damaged file is set aside and the generation replays the log from the start (ADR 24).
   */
  const restore = (generation: number): { gen: VectorGeneration; fingerprint: string | null; legacy?: true } => {
    const file = fileOf(generation);
    try {
      const snapshot = readSnapshot(file, generation);
      // Ahead of the log (its WAL lost frames, an older database beside newer snapshots): it holds
      // vectors of events that no longer exist, and would skip the positions written next.
      const head = options.lockedHead?.();
      if (snapshot && head !== undefined && BigInt(snapshot.header.checkpoint) > head) {
        throw new Error(`its checkpoint ${snapshot.header.checkpoint} is ahead of the log's head ${head}`);
      }
      if (snapshot) return { gen: restoreGeneration(snapshot), fingerprint: snapshot.header.fingerprint, ...(snapshot.legacy ? { legacy: true as const } : {}) };
    } catch (error) {
      setAsides.setAside(projectionName, generation, file, error instanceof Error ? error.message : String(error));
    }
    return { gen: emptyGeneration(generation, source), fingerprint: null };
  };
  const load = (gen: Generation): VectorGeneration => restore(gen.generation).gen;
  const openLive = (): { gen: VectorGeneration; fingerprint: string | null; legacy?: true } => {
    const row =
      generations.live(projectionName) ??
      db.transaction(() => generations.create(projectionName, 1, 'live')).immediate();
    return restore(row.generation);
  };
  const opened = openLive();
  let live = opened.gen;
  let liveFingerprint = opened.fingerprint;
  let flushTimer: NodeJS.Timeout | null = null;

  // What the snapshot on disk holds, and whether the live index changed since: a close after
  // events that change no vector (accesses, conversations) writes nothing until they pile up, so
  // a CLI call does not rewrite and fsync the whole index each time (reopening re-reads them).
  let persisted = { generation: live.generation, checkpoint: live.checkpoint };
  // A format 1 file has no checksum: rewrite it at the next close even when nothing changed.
  let changed = opened.legacy === true;
  // Low enough that the events a missed day's lifecycle tick appends at `start` are not replayed by every later call.
  const staleAfter = 100n;
  const persist = (gen: VectorGeneration): Promise<void> =>
    executor.run(async () => {
      const snapshot = await lock.read(() => toSnapshot(gen, source));
      await writeSnapshotAsync(fileOf(gen.generation), snapshot);
      persisted = { generation: gen.generation, checkpoint: gen.checkpoint };
      if (gen === live) changed = false;
      const row = generations.get(projectionName, gen.generation);
      if (row) generations.setCheckpoint(row, BigInt(snapshot.header.checkpoint));
    });
  const scheduleFlush = (): void => {
    if (flushTimer) return;
    flushTimer = setTimeout(() => {
      flushTimer = null;
      void persist(live).catch(() => undefined);
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
      if (gen === live && !changed) changed = page.some((e) => e.globalPosition > gen.checkpoint && feed.changes(e).length > 0);
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
      if (live.checkpoint !== before && (changed || live.checkpoint - persisted.checkpoint > staleAfter)) scheduleFlush();
    });
    return catchingUp;
  };

  const rebuildContext: VectorRebuildContext = {
    name: projectionName,
    db,
    generations,
    source,
    load,
    drain,
    applyPage: (gen, page) => applyVectorPage(gen, page, source, feed),
    persist,
    headNow: async () => (options.lockedHead ? options.lockedHead() : log.headPosition()),
    liveIdle: () => catchingUp,
    switchTo: (gen) => {
      const previous = live.generation;
      live = gen;
      liveFingerprint = source.fingerprint;
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
    search: (query: Float32Array, k: number): Promise<VectorHit[]> => {
      const failure = liveFailure();
      if (failure) return Promise.reject(new ProjectionFailedError(projectionName, failure));
      return lock.read(() => live.index.search(query, k));
    },
    ids: (): readonly string[] => live.index.ids(),
    pending: (): ReadonlyMap<string, string> => live.pending,
    /** The owners (memories) of the pending items, each once. */
    pendingOwners: (): string[] => [...new Set([...live.pending.keys()].map((id) => live.ownerOf.get(id) ?? id))].sort(),
    digest: (): string => vectorDigest(live),
    status() {
      const building = generations.building(projectionName);
      return {
        name: projectionName,
        generation: live.generation,
        checkpoint: live.checkpoint,
        size: live.index.size(),
        pending: live.pending.size,
        building: building ? { generation: building.generation, checkpoint: building.checkpoint } : null,
        failed: liveFailure(),
        /** Damaged snapshots set aside and rebuilt from the log, newest first. */
        setAside: setAsides.latest(projectionName),
      };
    },
    flush: async (): Promise<void> => {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      await catchingUp;
      await persist(live);
    },
    rebuild: (rebuildOptions: VectorRebuildOptions = {}) => rebuildVectors(rebuildContext, withDefaults(rebuildOptions)),
    /**
     * A rebuild whose shadow takes its pages from a replay shared with other read models
     * (`writer`, each page decoded once for all), then `complete` drains what is left and switches.
     */
    openRebuild: (rebuildOptions: VectorRebuildOptions = {}) => sharedVectorRebuild(rebuildContext, withDefaults(rebuildOptions)),
    /**
     * An erasure in place (ADR 32), after a catch-up, persisted at once: false when the live index
     * cannot take it (failed, or a shadow a rebuild left that may hold the vectors): rebuild it fresh.
     */
    eraseInPlace: async (erased: readonly RecordedEvent[]): Promise<boolean> => {
      await catchUp();
      if (liveFailure() || generations.building(projectionName)) return false;
      await lock.write(() => eraseVectorsInPlace(live, erased, feed));
      changed = true;
      await persist(live);
      return true;
    },
    /** Deletes this index's damaged snapshots set aside in its folder; returns their file names. */
    shredSetAsides: (): string[] => setAsides.shred(options.dir, projectionName),
    close: async (): Promise<void> => {
      if (flushTimer) clearTimeout(flushTimer);
      flushTimer = null;
      await catchingUp;
      if (changed || live.generation !== persisted.generation || live.checkpoint - persisted.checkpoint > staleAfter) await persist(live);
      await executor.idle();
    },
  };
}

export type VectorStore = ReturnType<typeof createVectorStore>;
