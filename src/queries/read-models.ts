import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { ftsKeysTableName, ftsTableName } from '../projections/fts.js';
import { createAtomQueries } from './atoms.js';
import { createConversationQueries } from './conversations.js';
import { createDocumentQueries } from './documents.js';
import { createGraphQueries } from './graph.js';
import { createGraphViewQueries } from './graph-view.js';
import { createHistoryQueries } from './history.js';
import { createKeywordSearch } from './keyword.js';
import { createLifecycleQueries } from './lifecycle.js';
import { createSourceQueries } from './sources.js';

/** Resolves a projection's table to its live generation's physical name (the runner's `liveTable`). */
export type LiveTable = (projection: string, table: string) => string;

/** The read APIs over the live generations of a store's projections; the same for the engine and for a past view. */
export function createReadModels(db: SqliteDatabase, liveTable: LiveTable) {
  return {
    documents: createDocumentQueries(db, (name) => liveTable('documents', name)),
    keyword: createKeywordSearch(db, () => liveTable('fts', ftsTableName), () => liveTable('fts', ftsKeysTableName)),
    graph: createGraphQueries(db, (name) => liveTable('graph', name)),
    graphView: createGraphViewQueries(db, (name) => liveTable('graph', name)),
    atoms: createAtomQueries(db, (name) => liveTable('atoms', name)),
    conversations: createConversationQueries(db, (name) => liveTable(name === 'conversation_revisions' ? name : 'conversations', name)),
    sources: createSourceQueries(db, () => liveTable('memory_sources', 'memory_sources')),
    history: createHistoryQueries(db, (name) => liveTable('memory_events', name)),
    lifecycle: createLifecycleQueries(db, (name) => liveTable(name === 'documents' || name === 'memory_vitals' ? 'documents' : 'lifecycle', name)),
  };
}

export type ReadModels = ReturnType<typeof createReadModels>;
