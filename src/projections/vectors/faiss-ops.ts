import { createRequire } from 'node:module';
import type { Index } from 'faiss-node';
import { withEfSearch } from './hnsw-ef-search.js';

const require = createRequire(import.meta.url);

/** One request to an indexes' owner (`faiss-host.ts`); `id` 0 asks for no answer. */
export type FaissRequest = { readonly id: number; readonly sync?: boolean; readonly h: number } & (
  | { readonly op: 'new'; readonly dimension: number }
  | { readonly op: 'newHnsw'; readonly dimension: number; readonly m: number }
  | { readonly op: 'efSearch'; readonly efSearch: number }
  | { readonly op: 'fromBuffer'; readonly bytes: Uint8Array }
  | { readonly op: 'read'; readonly path: string }
  | { readonly op: 'add'; readonly vectors: Float32Array }
  | { readonly op: 'remove'; readonly positions: number[] }
  | { readonly op: 'search'; readonly query: Float32Array; readonly k: number }
  | { readonly op: 'toBuffer' | 'free' | 'settled' }
  | { readonly op: 'write'; readonly path: string }
);

export type FaissReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly message: string };

/**
 * The indexes by handle (exact IndexFlatIP, or the approximate HNSW of ADR 8), and what each
 * request does to them. Runs on a faiss thread, or on the caller's thread when no thread script is
 * built (the TypeScript sources alone).
 */
export function createFaissOps() {
  const faiss = require('faiss-node') as typeof import('faiss-node');
  const indexes = new Map<number, Index>();
  // An add or removal nobody waits for that failed: the index's next request reports it.
  const broken = new Map<number, string>();
  const indexOf = (h: number): Index => {
    const failed = broken.get(h);
    if (failed !== undefined) throw new Error(failed);
    const index = indexes.get(h);
    if (!index) throw new Error(`faiss: no index ${h}`);
    return index;
  };
  const run = (m: FaissRequest): unknown => {
    switch (m.op) {
      case 'new':
        indexes.set(m.h, new faiss.IndexFlatIP(m.dimension));
        return undefined;
      case 'newHnsw':
        // Unit vectors: L2 ranks as inner product does.
        indexes.set(m.h, faiss.Index.fromFactory(m.dimension, `HNSW${m.m}`, faiss.MetricType.METRIC_L2));
        return undefined;
      case 'efSearch':
        indexes.set(m.h, withEfSearch(indexOf(m.h), m.efSearch, (bytes) => faiss.Index.fromBuffer(bytes)));
        return undefined;
      case 'fromBuffer':
      case 'read': {
        const bytes = m.op === 'fromBuffer' ? Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength) : null;
        const index = bytes ? faiss.IndexFlatIP.fromBuffer(bytes) : faiss.IndexFlatIP.read((m as { path: string }).path);
        indexes.set(m.h, index);
        return index.ntotal();
      }
      case 'add':
        indexOf(m.h).add(Array.from(m.vectors));
        return undefined;
      case 'remove':
        indexOf(m.h).removeIds(m.positions);
        return undefined;
      case 'search':
        return indexOf(m.h).search(Array.from(m.query), m.k);
      case 'toBuffer':
        return indexOf(m.h).toBuffer();
      case 'write':
        indexOf(m.h).write(m.path);
        return undefined;
      case 'free':
        indexes.delete(m.h);
        broken.delete(m.h);
        return undefined;
      case 'settled':
        // Answered after every request posted before it.
        return undefined;
    }
  };
  return {
    /** The request's answer; a failed request nobody waits for marks its index broken. */
    answer(m: FaissRequest): FaissReply {
      try {
        return { id: m.id, ok: true, value: run(m) };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (m.id === 0 && m.op !== 'free') broken.set(m.h, message);
        return { id: m.id, ok: false, message };
      }
    },
  };
}
