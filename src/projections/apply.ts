import type { RecordedEvent } from '../events/log/event-log.js';
import { optimizeDropsDeletedTerms, type SqliteDatabase } from '../events/log/sqlite-database.js';
import { withoutFsync } from '../events/log/durability.js';
import { describeFailure, isEnvironmental } from './failure.js';
import { ftsTablesOf } from './fts-merge.js';
import type { Generation, GenerationStore } from './generations.js';
import type { Projection } from './projection.js';
import { bindGeneration } from './tx.js';

/**
 * Applies pages of the log to one generation; rows and checkpoint commit in one transaction, not
 * waiting for fsync. An event the projection cannot apply marks the generation failed at that
 * event (ADR 23): the events before it are applied, nothing after it is, and the other
 * projections go on.
 */
export function createGenerationWriter(db: SqliteDatabase, store: GenerationStore, projection: Projection, gen: Generation) {
  const tx = bindGeneration(db, projection, gen.generation);
  const handles = new Set<string>(projection.handles);
  /** The page's events this generation has not applied yet, or null when it takes no more writes. */
  const pending = (page: readonly RecordedEvent[]): { fresh: readonly RecordedEvent[]; checkpoint: bigint } | null => {
    // A generation retired by a rebuild's switch, failed, or stopped at an event takes no more writes.
    const checkpoint = store.writableCheckpoint(gen.name, gen.generation);
    if (checkpoint === undefined) return null;
    // A page may overlap what was applied already (two catch-ups racing): skip, never apply twice.
    return { fresh: page.filter((e) => e.globalPosition > checkpoint), checkpoint };
  };
  const applyPage = db.transaction((page: readonly RecordedEvent[]): bigint | null => {
    const todo = pending(page);
    if (!todo) return null;
    const last = todo.fresh.at(-1);
    if (!last) return todo.checkpoint;
    const handled = todo.fresh.filter((e) => handles.has(e.type));
    if (handled.length > 0) projection.apply(handled, tx);
    store.setCheckpoint(gen, last.globalPosition);
    return last.globalPosition;
  });
  /**
   * After a page failed: applies it again event by event, each in a savepoint, up to the one that
   * throws, and records that one. A page that goes through one event at a time is simply applied.
   */
  const applyUpToFailure = db.transaction((page: readonly RecordedEvent[]): bigint | null => {
    const todo = pending(page);
    if (!todo) return null;
    const one = db.transaction((event: RecordedEvent) => projection.apply([event], tx));
    let applied = todo.checkpoint;
    for (const event of todo.fresh) {
      if (handles.has(event.type)) {
        try {
          one(event);
        } catch (error) {
          if (isEnvironmental(error)) throw error;
          store.setCheckpoint(gen, applied);
          store.markFailed(gen, event.globalPosition, describeFailure(error));
          return null;
        }
      }
      applied = event.globalPosition;
    }
    store.setCheckpoint(gen, applied);
    return applied;
  });
  const markFailed = db.transaction((position: bigint, error: string) => {
    if (pending([])) store.markFailed(gen, position, error);
  });
  const eraseInPlace = db.transaction((erased: readonly RecordedEvent[]): boolean => {
    if (!pending([]) || !projection.eraseInPlace) return false;
    projection.eraseInPlace(erased, tx);
    // A deleted or changed FTS5 row leaves its old tokens in the index segments until they merge
    // (a replay drops the table instead): merged now, so no token of the subject stays in the file.
    // FTS5's own secure-delete was tried (ADR 32): it removes a row's tokens from the leaves but
    // not the leaf separators in `_idx`, which hold a term whole; the crash test found one there.
    for (const table of ftsTablesOf(db, projection, gen.generation)) {
      db.exec(`INSERT INTO ${table} (${table}) VALUES ('optimize')`);
      // An unpatched SQLite can keep the deleted rows' terms as markers in the merged segment.
      if (!optimizeDropsDeletedTerms(db)) db.exec(`INSERT INTO ${table} (${table}) VALUES ('rebuild')`);
    }
    return true;
  });
  // A plain function, not better-sqlite3's Transaction type, so the emitted .d.ts stays portable.
  const init = db.transaction(() => projection.init(tx));
  return {
    generation: gen.generation,
    init: (): void => init(),
    applyPage: (page: readonly RecordedEvent[]): bigint | null =>
      withoutFsync(db, () => {
        try {
          return applyPage.immediate(page);
        } catch (error) {
          if (isEnvironmental(error)) throw error;
          return applyUpToFailure.immediate(page);
        }
      }),
    /** Applies an erasure to the rows in place; false when the generation takes no writes or the projection cannot. */
    eraseInPlace: (erased: readonly RecordedEvent[]): boolean => withoutFsync(db, () => eraseInPlace.immediate(erased)),
    /** Marks the generation failed at an event it could not even read (a corrupt event in the log). */
    fail: (position: bigint, error: string): void => markFailed.immediate(position, error),
    failure: () => store.failure(gen.name, gen.generation) ?? null,
    checkpoint: () => store.get(gen.name, gen.generation)?.checkpoint ?? 0n,
  };
}

export type GenerationWriter = ReturnType<typeof createGenerationWriter>;
