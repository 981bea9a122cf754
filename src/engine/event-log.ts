import { openEventStoreDbEventLog, type EventStoreDbEventLog } from '../events/log/eventstore-event-log.js';
import type { SealedEventLog } from '../events/log/sealed-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { createSqliteEventLog, sqliteLockedHead } from '../events/log/sqlite-event-log.js';
import { ConfigError, type Config } from './config.js';

export interface EngineLog {
  readonly log: SealedEventLog;
  /** Set for the shared log only: EventStoreDB's own operations (anchors, remote erasures). */
  readonly shared: EventStoreDbEventLog | null;
  /** The head read under the write lock, when the log lives in the store file (exact rebuild switches). */
  readonly lockedHead?: () => bigint;
}

/** Opens the log `log.kind` names: in the store file, or EventStoreDB shared by every node (ADR 27). */
export async function openEngineLog(config: Config, db: SqliteDatabase): Promise<EngineLog> {
  if (config.log.kind === 'sqlite') {
    return { log: Object.assign(createSqliteEventLog(db), { kind: 'sqlite' as const }), shared: null, lockedHead: sqliteLockedHead(db) };
  }
  const { connectionString, namespace } = config.log.eventstoredb;
  if (!connectionString) {
    throw new ConfigError('log.eventstoredb.connectionString', 'log.kind', 'is required when log.kind is eventstoredb (or set LIVINGMEMORY_EVENTSTORE_URL)');
  }
  const shared = await openEventStoreDbEventLog({ connectionString, namespace });
  return { log: shared, shared };
}
