import { destroyKeyStep, type ErasureProcess } from '../../commands/erasure/decider.js';
import { stampEvents } from '../../commands/decider.js';
import type { ExpectedRevision, RecordedEvent } from '../../events/log/event-log.js';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import type { SealedEventLog } from '../../events/log/sealed-log.js';
import { streams } from '../../events/streams.js';
import type { EmbeddingCache, EmbeddingProvider } from '../../providers/embeddings/index.js';
import type { Environment } from '../clock.js';
import { engineProjections, rebuildEveryIndex, type Indexes } from '../indexes.js';
import { commandMetadata } from '../system-events.js';
import { scrubPageGaps } from '../page-gaps.js';
import { inPlaceStep } from './in-place.js';
import { erasedCacheKeys } from './reach.js';

/** What the steps of an erasure work with. */
export interface ErasureDeps {
  readonly db: SqliteDatabase;
  readonly log: SealedEventLog;
  readonly env: Environment;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  /** Who an erasure's events name when the caller names no one. */
  readonly defaultActor: string;
  /** Drops what the engine holds in memory from the log: the recall cache, cached conversation states. */
  readonly invalidate: () => void;
  /** Cancels running background work that holds content in memory (summary tasks) and waits for it. */
  readonly quiesce: () => Promise<void>;
  /** Resolves when no WAL checkpoint of another thread runs (one would leave the scrub's TRUNCATE busy). */
  readonly checkpointsIdle?: () => Promise<void>;
}

/** One erasure being run: its process as the log tells it, and what this run measured on the way. */
export interface ErasureRun {
  readonly process: ErasureProcess;
  /** The erasure stream's revision the process was read at: the key's destruction appends at it. */
  readonly revision: ExpectedRevision;
  /** Who runs it: the caller who asked, or the engine finishing what a killed process left. */
  readonly actor: string;
  readonly report: ErasureReport;
}

/** What a run of the steps measured on the way, for the receipt. */
export interface ErasureReport {
  embeddingsForgotten: number;
  walTruncated: boolean | null;
  /** Whether the scrub rewrote the file (VACUUM): only when it was not known clean (ADR 19). */
  vacuumed: boolean;
}

export const newErasureReport = (): ErasureReport => ({ embeddingsForgotten: 0, walTruncated: null, vacuumed: false });

/**
 * A step of the erasure process, run in plan order. Each is idempotent: a process killed during a
 * step runs it again on the next open. Later steps (shredding managed backups, say) go in the list
 * the engine is given, each with a new name; the plan of a started erasure is kept in its event.
 */
export interface ErasureStep {
  readonly name: string;
  run(deps: ErasureDeps, run: ErasureRun): Promise<void>;
}

/**
 * In one transaction: the subject's embedding cache rows go (their keyed hashes and vectors),
 * SubjectErased is recorded, and the key row is deleted. Summaries in flight are cancelled first:
 * they hold the subject's messages in memory and would write them under a new key.
 */
const destroyKey: ErasureStep = {
  name: destroyKeyStep,
  async run(deps, { process, revision, report, actor }) {
    await deps.quiesce();
    await deps.indexes.catchUp();
    const { erasureId, subject, reason } = process;
    const meta = commandMetadata(deps.env, actor, { correlationId: erasureId });
    await deps.log.eraseSubject(subject, (erasure) => {
      report.embeddingsForgotten = deps.cache.forget(erasedCacheKeys(deps, erasure.sealed()));
      const keyIds = erasure.keyId === undefined ? [] : [erasure.keyId];
      const body = { type: 'SubjectErased' as const, schemaVersion: 1 as const, data: { erasureId, subject, reason, keyIds, counts: erasure.counts } };
      return { streamId: streams.erasures, event: stampEvents([body], meta)[0] as RecordedEvent, expectedRevision: revision };
    });
    deps.invalidate();
  },
};

/**
 * Every read model replayed from the log, where the content now reads as erased: a rebuild is a
 * replay, so the live models equal a fresh replay by construction. `fresh`: a shadow generation a
 * killed rebuild left from before the key's destruction may hold the plaintext, so it is dropped.
 * Damaged snapshots set aside on an open (ADR 24) hold the vectors of their time: deleted too.
 */
const rebuildReadModels: ErasureStep = {
  name: 'rebuild-read-models',
  async run(deps, { process }) {
    deps.invalidate();
    // One replay for the SQLite read models and both vector indexes (ADR 4).
    await rebuildEveryIndex(deps.indexes, engineProjections.map((p) => p.name), `subject ${process.subject.kind} erased`, { fresh: true });
    await pausePoint('rebuild-read-models:midway');
    for (const store of [deps.indexes.vectors, deps.indexes.graphVectors]) store.shredSetAsides();
    await deps.indexes.catchUp();
    deps.invalidate();
  },
};

/**
 * Every page into the file and the WAL emptied. With `secure_delete` on, deleted cells and freed
 * pages were zeroed as they went; a b-tree page a balance rebuilt also keeps old cell bytes in its
 * unallocated middle unless the SQLite build zeroes it (the set-up's patch, ADR 19: the crash test
 * found an atom's text there without it). A file not known to be written only by such a build is
 * rewritten by VACUUM (then it is known clean).
 */
const scrubStoreFile: ErasureStep = {
  name: 'scrub-store-file',
  async run(deps, { report }) {
    // No turn of the loop from here to the second TRUNCATE: the checkpoint thread cannot start in between.
    await deps.checkpointsIdle?.();
    const first = deps.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    report.vacuumed = scrubPageGaps(deps.db).vacuumed || report.vacuumed;
    const second = deps.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    report.walTruncated = first[0]?.busy === 0 && second[0]?.busy === 0;
  },
};

/** The erasure's steps, in order: the read models take the erasure in place (ADR 32). */
export const defaultErasureSteps: readonly ErasureStep[] = [destroyKey, inPlaceStep(rebuildReadModels, (point) => pausePoint(point)), scrubStoreFile];

/** Steps no new plan names, kept so an erasure an older build started runs its own plan (ADR 19). */
export const retiredErasureSteps: readonly ErasureStep[] = [rebuildReadModels];

/**
 * A fault-injection point for the crash tests: when LMEM_TEST_ERASURE_PAUSE names this point,
 * the process says so on stderr and waits to be killed there. Unset (always, but in those tests) it costs nothing.
 */
export async function pausePoint(point: string): Promise<void> {
  if (process.env['LMEM_TEST_ERASURE_PAUSE'] !== point) return;
  process.stderr.write(`erasure paused at ${point}\n`);
  await new Promise(() => setInterval(() => undefined, 60_000));
}
