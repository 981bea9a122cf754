import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { ftsKeysTableName, ftsTableName } from '../projections/fts.js';
import { graphTables, type GraphTable } from '../projections/graph.js';
import { toFtsQuery } from '../projections/text/tokenizer.js';
import type { KeywordHit } from '../queries/keyword.js';
import type { GraphCandidates, GraphCandidatesRequest } from '../queries/recall/graph-candidates.js';
import type { KeywordRequest, RouteSources } from '../queries/recall/routes.js';
import type { ScoredId } from '../queries/recall/types.js';
import { engineThreadScript } from './thread-script.js';

// worker_threads is loaded at the first recall that hands work over: a CLI start that never does skips it (ADR 26).
const lazyRequire = createRequire(import.meta.url);

/** A request to the recall thread, with the live generations' table names. */
export type RecallThreadRequest = { readonly id: number; readonly tables: Readonly<Record<GraphTable | 'fts' | 'ftsKeys', string>> } & (
  | { readonly kind: 'keyword'; readonly match: string | null; readonly filter: KeywordRequest }
  | { readonly kind: 'graph'; readonly graph: GraphCandidatesRequest }
);

type Answer = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

const threadScript = (): URL | null => engineThreadScript('recall-thread.js');

type Tables = RecallThreadRequest['tables'];

/** Requests in flight at most; more run on the caller's thread. */
export const maxInFlight = 256;

/**
 * Requests (two a recall) answered here before the thread starts: starting one costs tens of
 * milliseconds of CPU, which a CLI command or a test's engine, with a recall or two, never earns back.
 */
const startAfter = 16;

/**
 * Memories a store holds before the thread is worth its hand-offs. At 10k a recall's keyword sides
 * are about 4 ms of CPU and handing them over added about 3 ms (15.1 against 12.3 ms of CPU a
 * global recall, all threads), so on two shared cores recall was slower with it (ADR 21); at 100k
 * it moves 24 ms off this thread. Between the two measured sizes, where the moved work is about
 * twice its cost.
 */
export const recallThreadFrom = 30_000;
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/**
 * The recall routes' keyword sides on a worker thread with its own read-only connection, so that a
 * recall's SQL and its vector searches use two cores (ADR 21). A request handed over is the
 * thread's to answer, even when the caller is done first: claimed back, a 100k store's keyword
 * search ran here in one step of 40-90 ms, the event loop's longest pauses under a recall load
 * (ADR 21, session 17). Started after the first few requests, and only while `worthIt()` (the
 * engine's: the store holds `recallThreadFrom` memories); those, and any made before it is ready,
 * after it failed or past `maxInFlight`, get null: the route runs them on the caller's thread.
 * Null for a store with no file a second connection could open.
 */
export function createRecallWorker(db: SqliteDatabase, tables: () => Tables, worthIt: () => boolean = () => true) {
  const script = threadScript();
  if (db.memory || !existsSync(db.name) || !script) return null;
  let worker: Worker | null = null;
  // Set by the thread once its connection is open; read without waiting for an event, since a busy
  // caller may not give its event loop a turn between recalls.
  const ready = new Int32Array(new SharedArrayBuffer(4));
  let failed = false;
  let next = 0;
  let asked = 0;
  const pending = new Map<number, Pending>();
  const settle = (id: number): Pending | undefined => {
    const waiting = pending.get(id);
    pending.delete(id);
    // Held only while it owes an answer: an idle thread keeps no process alive.
    if (pending.size === 0) worker?.unref();
    return waiting;
  };
  const stop = (error: Error): void => {
    failed = true;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  const start = (): Worker => {
    const { Worker: Thread } = lazyRequire('node:worker_threads') as typeof import('node:worker_threads');
    const w = new Thread(script, { workerData: { path: db.name, ready } });
    w.unref();
    w.on('message', (answer: Answer) => {
      const waiting = settle(answer.id);
      if (answer.ok) waiting?.resolve(answer.value);
      else waiting?.reject(new Error(`recall thread: ${answer.message}`));
    });
    w.on('error', (error) => stop(error));
    w.on('exit', (code) => stop(new Error(`the recall thread stopped (exit ${code})`)));
    return w;
  };
  /** Hands `request` over, its answer to come; null when the thread is not there (not started, not ready, failed, too busy) or the tables cannot be named. */
  const ask = <T>(request: { kind: 'keyword'; match: string | null; filter: KeywordRequest } | { kind: 'graph'; graph: GraphCandidatesRequest }): Promise<T> | null => {
    if (failed) return null;
    asked += 1;
    if (asked < startAfter || !worthIt()) return null;
    worker ??= start();
    if (Atomics.load(ready, 0) !== 1 || pending.size >= maxInFlight) return null;
    let named: Tables;
    try {
      named = tables();
    } catch {
      // A failed read model: on this thread the route reports it as its own failure.
      return null;
    }
    const id = (next += 1);
    const answer = new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
    // Awaited only once the caller's own part is done: a failure meanwhile is not unhandled.
    answer.catch(() => undefined);
    worker.ref();
    worker.postMessage({ ...request, id, tables: named } satisfies RecallThreadRequest);
    return answer;
  };
  return {
    /** What the routes hand over (`RouteSources.elsewhere`). */
    routes: {
      // The query is tokenized here: the thread would load jieba's dictionary (seconds) at its first Chinese query.
      keyword: (query, filter) => ask<KeywordHit[]>({ kind: 'keyword', match: toFtsQuery(query), filter }),
      graph: (graph) => ask<GraphCandidates>({ kind: 'graph', graph }),
    } satisfies NonNullable<RouteSources['elsewhere']>,
    async close(): Promise<void> {
      const w = worker;
      worker = null;
      failed = true;
      await w?.terminate();
    },
  };
}

export type RecallWorker = NonNullable<ReturnType<typeof createRecallWorker>>;

/** The live generations' names of the tables the recall thread reads. */
export function recallThreadTables(liveTable: (projection: string, table: string) => string): Tables {
  return {
    ...(Object.fromEntries(graphTables.map((t) => [t, liveTable('graph', t)])) as Record<GraphTable, string>),
    fts: liveTable('fts', ftsTableName),
    ftsKeys: liveTable('fts', ftsKeysTableName),
  };
}
