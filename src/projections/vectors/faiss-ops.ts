import { createRequire } from 'node:module';
import type { IndexFlatIP } from 'faiss-node';

const require = createRequire(import.meta.url);

/** One request to the exact indexes' owner (`faiss-host.ts`); `id` 0 asks for no answer. */
export type FaissRequest = { readonly id: number; readonly sync?: boolean; readonly h: number } & (
  | { readonly op: 'new'; readonly dimension: number }
  | { readonly op: 'fromBuffer'; readonly bytes: Uint8Array }
  | { readonly op: 'read'; readonly path: string }
  | { readonly op: 'add'; readonly vectors: Float32Array }
  | { readonly op: 'remove'; readonly positions: number[] }
  | { readonly op: 'search'; readonly query: Float32Array; readonly k: number }
  | { readonly op: 'toBuffer' | 'free' }
  | { readonly op: 'write'; readonly path: string }
);

export type FaissReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly message: string };

/**
 * The exact indexes by handle, and what each request does to them. Runs on the faiss thread, or on
 * the caller's thread when no thread script is built (the TypeScript sources alone).
 */
export function createFaissOps() {
  const faiss = require('faiss-node') as typeof import('faiss-node');
  const indexes = new Map<number, IndexFlatIP>();
  // An add or removal nobody waits for that failed: the index's next request reports it.
  const broken = new Map<number, string>();
  const indexOf = (h: number): IndexFlatIP => {
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
