import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRecallWorker, recallThreadTables, type RecallWorker } from '../src/engine/recall-worker.js';
import { openDatabase, type SqliteDatabase } from '../src/events/log/sqlite-database.js';
import { graphCandidates } from '../src/queries/recall/graph-candidates.js';
import { openTestEngine, tempDir } from './support/engine.js';

type Engine = Awaited<ReturnType<typeof openTestEngine>>;

const texts = [
  'Alice plays the violin in Osaka every Friday',
  'Bob drinks green tea with Alice after tennis',
  '南京市长江大桥 是 Alice 最喜欢的地方',
  'The engineer Bob fixed the jazz club sound system',
  'Alice and Bob went to a jazz concert in Osaka',
  '明天 Bob 去 咖啡 馆 见 Alice',
];

const pause = () => new Promise((resolve) => setTimeout(resolve, 10));

/** The thread's answer, handed over until the thread has started (after a few requests), is ready and takes it. */
async function answered<T>(ask: () => Promise<T> | null): Promise<T> {
  for (let i = 0; i < 500; i += 1) {
    const handed = ask();
    if (handed) return handed;
    await pause();
  }
  throw new Error('the recall thread never answered');
}

describe('the recall thread', () => {
  let temp: ReturnType<typeof tempDir>;
  let engine: Engine;
  let db: SqliteDatabase;
  let worker: RecallWorker | null;
  beforeEach(async () => {
    temp = tempDir();
    engine = await openTestEngine(temp.dir);
    for (const [i, text] of texts.entries()) await engine.writeMemory({ text, sessionId: `s${i % 2}`, userId: 'u', participants: ['Alice', 'Bob'] });
    db = openDatabase(join(temp.dir, 'livingmemory.db'));
    worker = createRecallWorker(db, () => recallThreadTables(engine.runner.liveTable));
  });
  afterEach(async () => {
    await worker?.close();
    db.close();
    await engine.close();
    temp.remove();
  });

  it('answers the keyword searches and the graph candidates exactly as this thread does', async () => {
    const routes = worker?.routes;
    if (!routes) throw new Error('no recall thread for a store on disk');
    for (const query of ['Alice violin', 'jazz Osaka', '长江大桥', 'Bob tea', 'nothing matches this']) {
      for (const filter of [{}, { sessionId: 's0' }, { userId: 'u', sessionId: 's1' }]) {
        const request = { ...filter, limit: 4 };
        expect(await answered(() => routes.keyword(query, request))).toEqual(engine.indexes.keyword.search(query, request));
        const graph = { query, filter, limit: 4, hops: 2 as const };
        expect(await answered(() => routes.graph(graph))).toEqual(graphCandidates(engine.indexes.graph, graph));
      }
    }
  });

  it('answers every request it was handed, also those whose answer the caller wants at once: none comes back to the caller', async () => {
    const routes = worker?.routes;
    if (!routes) throw new Error('no recall thread for a store on disk');
    await answered(() => routes.keyword('Alice', { limit: 3 }));
    // Handed over and awaited at once, before the thread can have read its messages.
    const queries = ['Bob', 'jazz', 'Osaka', 'tea'];
    const handed = queries.map((query) => routes.keyword(query, { limit: 3 }));
    expect(handed.every((h) => h instanceof Promise)).toBe(true);
    expect(await Promise.all(handed)).toEqual(queries.map((query) => engine.indexes.keyword.search(query, { limit: 3 })));
  });

  it('when the thread stops, what it owed fails (the route then runs it on its own thread)', async () => {
    const routes = worker?.routes;
    if (!routes) throw new Error('no recall thread for a store on disk');
    await answered(() => routes.keyword('Alice', { limit: 3 }));
    const owed = routes.keyword('Bob', { limit: 3 });
    await worker?.close();
    await expect(owed).rejects.toThrow(/recall thread/);
  });

  it('after closing, leaves every request to the caller', async () => {
    await worker?.close();
    expect(worker?.routes.keyword('Alice', { limit: 3 })).toBeNull();
  });
});
