import { createRequire } from 'node:module';
import type { SearchResult } from 'faiss-node';
import { threadScript } from '../../events/thread-script.js';
import { createFaissOps, type FaissReply, type FaissRequest } from './faiss-ops.js';

// worker_threads and faiss are loaded at the first index made or read: commands that never search load neither (ADR 26).
const lazyRequire = createRequire(import.meta.url);

// Each kind of request without what the owner adds (its id, whether the caller waits).
type WithoutId<R> = R extends unknown ? Omit<R, 'id' | 'sync'> : never;
type Request = WithoutId<FaissRequest>;

interface Owner {
  /** Posted; no answer awaited (an add, a removal): a failure shows at the index's next request. */
  post(m: Request, transfer?: ArrayBuffer[]): void;
  /** Answered without blocking the event loop. */
  call(m: Request): Promise<unknown>;
  /** Answered before it returns: the event loop waits (reads of a snapshot, serialisations). */
  callNow(m: Request): unknown;
}

const unwrap = (reply: FaissReply): unknown => {
  if (!reply.ok) throw new Error(reply.message);
  return reply.value;
};

/** The indexes on this thread: no thread script is built (the TypeScript sources alone). */
function ownedHere(): Owner {
  const ops = createFaissOps();
  const now = (m: Request): unknown => unwrap(ops.answer({ ...m, id: 1 } as FaissRequest));
  return {
    post: (m) => void ops.answer({ ...m, id: 0 } as FaissRequest),
    call: async (m) => now(m),
    callNow: now,
  };
}

// A synchronous request waits at most this long for the thread (reading a very large index file takes seconds).
const syncLimitMs = 10 * 60_000;

/** The indexes on a worker thread of their own, which never keeps the process alive while nothing awaits it. */
function ownedByThread(script: URL): Owner {
  const { Worker, MessageChannel, receiveMessageOnPort } = lazyRequire('node:worker_threads') as typeof import('node:worker_threads');
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(script, { workerData: { flag, port: port2 }, transferList: [port2] });
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let stopped: Error | null = null;
  worker.on('message', (reply: FaissReply) => {
    const waiter = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (waiting.size === 0) worker.unref();
    if (!reply.ok) waiter?.reject(new Error(reply.message));
    else waiter?.resolve(reply.value);
  });
  const stop = (error: Error): void => {
    stopped ??= error;
    for (const waiter of waiting.values()) waiter.reject(stopped);
    waiting.clear();
  };
  worker.on('error', stop);
  worker.on('exit', () => stop(new Error('the faiss thread stopped: every vector index of this process is gone; restart it')));
  // After the listeners: adding a 'message' listener refs the worker again.
  worker.unref();
  port1.unref();
  const send = (m: FaissRequest, transfer?: ArrayBuffer[]): void => {
    if (stopped) throw stopped;
    worker.postMessage(m, transfer);
  };
  return {
    post: (m, transfer) => send({ ...m, id: 0 } as FaissRequest, transfer),
    call: (m) =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        send({ ...m, id } as FaissRequest);
        waiting.set(id, { resolve, reject });
        worker.ref();
      }),
    callNow(m) {
      Atomics.store(flag, 0, 0);
      send({ ...m, id: -1, sync: true } as FaissRequest);
      const deadline = Date.now() + syncLimitMs;
      for (;;) {
        Atomics.wait(flag, 0, 0, 1000);
        const got = receiveMessageOnPort(port1);
        if (got) return unwrap(got.message as FaissReply);
        if (stopped) throw stopped;
        if (Date.now() > deadline) throw new Error(`the faiss thread did not answer a ${m.op} within ${syncLimitMs / 1000} s`);
      }
    },
  };
}

/**
 * Two threads: the exact indexes on one, the approximate ones (ADR 8) on the other, so that an
 * HNSW build (minutes at 1M vectors) never holds up an exact search queued behind it.
 */
type Lane = 'exact' | 'approximate';
const owners = new Map<Lane, Owner>();
const ownerNow = (lane: Lane = 'exact'): Owner => {
  let owner = owners.get(lane);
  if (owner) return owner;
  const script = threadScript(import.meta.url, 'faiss-thread.js');
  owners.set(lane, (owner = script ? ownedByThread(script) : ownedHere()));
  return owner;
};

let nextHandle = 1;
// An index nobody holds any more is freed in the thread too.
const freed = new FinalizationRegistry<{ h: number; lane: Lane }>(({ h, lane }) => {
  try {
    owners.get(lane)?.post({ op: 'free', h });
  } catch {
    // The thread stopped: nothing left to free.
  }
});

/**
 * An exact inner-product FAISS index owned by the faiss thread (issue 17): adds and removals are
 * posted, searches and index files answered without blocking the event loop, each request after
 * every one posted before it. faiss-node's own objects cannot cross threads, hence handles.
 */
export interface FaissIndex {
  add(vectors: Float32Array): void;
  removeIds(positions: number[]): void;
  search(query: Float32Array, k: number): Promise<SearchResult>;
  /** The search on this thread's time: for callers that cannot wait (a replay's view, a test). */
  searchNow(query: Float32Array, k: number): SearchResult;
  toBuffer(): Buffer;
  /** The same serialisation, without the event loop waiting for it. */
  toBufferLater(): Promise<Buffer>;
  /** faiss writes the index to `path` (on the thread). */
  write(path: string): Promise<void>;
}

const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function handleOf(h: number, lane: Lane = 'exact'): FaissIndex {
  const owner = () => ownerNow(lane);
  const made: FaissIndex = {
    add: (vectors) => owner().post({ op: 'add', h, vectors }, [vectors.buffer as ArrayBuffer]),
    removeIds: (positions) => owner().post({ op: 'remove', h, positions }),
    search: async (query, k) => (await owner().call({ op: 'search', h, query, k })) as SearchResult,
    searchNow: (query, k) => owner().callNow({ op: 'search', h, query, k }) as SearchResult,
    toBuffer: () => asBuffer(owner().callNow({ op: 'toBuffer', h }) as Uint8Array),
    toBufferLater: async () => asBuffer((await owner().call({ op: 'toBuffer', h })) as Uint8Array),
    write: async (path) => void (await owner().call({ op: 'write', h, path })),
  };
  freed.register(made, { h, lane });
  return made;
}

/**
 * Resolves once the approximate indexes' thread has done every request posted to it (their adds
 * are posted, not awaited): a process must not exit while faiss works there, it aborts.
 */
export async function approximateSettled(): Promise<void> {
  const owner = owners.get('approximate');
  if (owner) await owner.call({ op: 'settled', h: 0 });
}

/**
 * A new empty HNSW index (faiss `HNSW<m>`, L2) on the approximate indexes' thread. `ready` resolves
 * once the thread has made every add posted before it and set `efSearch`: the build is done.
 */
export function newHnswIndex(dimension: number, m: number): { index: FaissIndex; caughtUp(): Promise<void>; ready(efSearch: number): Promise<void> } {
  const h = nextHandle++;
  const owner = ownerNow('approximate');
  owner.post({ op: 'newHnsw', h, dimension, m });
  return {
    index: handleOf(h, 'approximate'),
    /** Resolves once the thread has made every add posted before it. */
    caughtUp: async () => void (await owner.call({ op: 'settled', h })),
    ready: async (efSearch) => void (await owner.call({ op: 'efSearch', h, efSearch })),
  };
}

/** A new empty index of `dimension`. */
export function newFaissIndex(dimension: number): FaissIndex {
  const h = nextHandle++;
  ownerNow().post({ op: 'new', h, dimension });
  return handleOf(h);
}

/** An index read from its serialisation (`bytes`) or from a file faiss reads itself, with the count of vectors it holds. */
export function readFaissIndex(from: { readonly bytes: Buffer } | { readonly path: string }): { index: FaissIndex; count: number } {
  const h = nextHandle++;
  const count = ownerNow().callNow('path' in from ? { op: 'read', h, path: from.path } : { op: 'fromBuffer', h, bytes: from.bytes }) as number;
  return { index: handleOf(h), count };
}
