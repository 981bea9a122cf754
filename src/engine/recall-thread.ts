import { parentPort, workerData } from 'node:worker_threads';
import { openReadOnly } from '../events/log/sqlite-database.js';
import type { GraphTable } from '../projections/graph.js';
import { createGraphQueries } from '../queries/graph.js';
import { createKeywordSearch } from '../queries/keyword.js';
import { graphCandidates } from '../queries/recall/graph-candidates.js';
import type { RecallThreadRequest } from './recall-worker.js';

// Runs in a worker thread: the routes' keyword sides over a read-only connection of its own, while
// the recall's thread searches the vectors (ADR 21).
const data = workerData as { path: string; ready: Int32Array };
const db = openReadOnly(data.path);
db.pragma('busy_timeout = 10000');
// The live generation's table names, as the recall's thread named them with the request.
let tables: RecallThreadRequest['tables'] | null = null;
const named = (name: GraphTable | 'fts' | 'ftsKeys'): string => {
  if (!tables) throw new Error('no tables named');
  return tables[name];
};
const graph = createGraphQueries(db, named);
const keyword = createKeywordSearch(db, () => named('fts'), () => named('ftsKeys'));

const answer = (request: RecallThreadRequest): unknown =>
  request.kind === 'keyword' ? keyword.searchMatch(request.match, request.filter) : graphCandidates(graph, request.graph);

parentPort?.on('message', (request: RecallThreadRequest) => {
  try {
    tables = request.tables;
    parentPort?.postMessage({ id: request.id, ok: true, value: answer(request) });
  } catch (error) {
    parentPort?.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
Atomics.store(data.ready, 0, 1);
