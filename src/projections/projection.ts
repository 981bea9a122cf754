import type { RunResult } from 'better-sqlite3';
import type { EventType } from '../events/catalog.js';
import type { RecordedEvent } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';

/** A projection's tables, named for the generation being written; `{table}` in SQL names one of them. */
export interface ProjectionTx {
  readonly db: SqliteDatabase;
  table(name: string): string;
  run(sql: string, ...params: unknown[]): RunResult;
  get<R>(sql: string, ...params: unknown[]): R | undefined;
  all<R>(sql: string, ...params: unknown[]): R[];
  exec(sql: string): void;
}

export interface ProjectionTable {
  readonly name: string;
  /** ORDER BY clause that makes the digest canonical. */
  readonly key: string;
}

/** A read model: an evolve over its own tables, rebuilt by replaying the log. */
export interface Projection {
  readonly name: string;
  /** Bumped when the tables or the apply logic change; a new version rebuilds. */
  readonly version: number;
  readonly tables: readonly ProjectionTable[];
  readonly handles: readonly EventType[];
  init(tx: ProjectionTx): void;
  /** Applies events in position order; runs inside the transaction that also moves the checkpoint. */
  apply(batch: readonly RecordedEvent[], tx: ProjectionTx): void;
  /**
   * An erasure applied in place (ADR 32): `erased` are the events the destroyed keys sealed, as they
   * read now (content erased), in position order; the rows they made become what a replay of the
   * log would make of them. Without it, an erasure replays the projection whole.
   */
  eraseInPlace?(erased: readonly RecordedEvent[], tx: ProjectionTx): void;
}
