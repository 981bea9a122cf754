import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../../events/log/event-log.js';
import { createFlatIndex, type FlatIndex } from './flat-index.js';
import type { Snapshot } from './snapshot.js';

/** Where vectors come from: the content-addressed embedding cache the engine filled before appending. */
export interface VectorSource {
  readonly fingerprint: string;
  readonly dimension: number;
  keyOf(text: string): string;
  lookup(key: string): Float32Array | undefined;
}

export interface VectorGeneration {
  readonly generation: number;
  readonly index: FlatIndex;
  readonly pending: Map<string, string>;
  checkpoint: bigint;
}

export const vectorEventTypes = new Set(['MemoryWritten', 'MemoryUpdated', 'MemoryForgotten', 'MemoryEmbeddingRepaired']);

export function emptyGeneration(generation: number, source: VectorSource): VectorGeneration {
  return { generation, index: createFlatIndex(source.dimension), pending: new Map(), checkpoint: 0n };
}

export function restoreGeneration(snapshot: Snapshot): VectorGeneration {
  const { header } = snapshot;
  return {
    generation: header.generation,
    index: createFlatIndex(header.dimension, { buffer: snapshot.index, ids: header.ids }),
    pending: new Map(header.pending.map(([id, key]) => [id, key])),
    checkpoint: BigInt(header.checkpoint),
  };
}

/** Applies a page in order; an embedding missing from the cache leaves the memory pending, never lost. */
export function applyVectorPage(gen: VectorGeneration, page: readonly RecordedEvent[], source: VectorSource): void {
  for (const event of page) {
    if (event.globalPosition <= gen.checkpoint) continue;
    const embed = (memoryId: string, key: string): void => {
      const vector = source.lookup(key);
      if (vector) {
        gen.index.upsertMany([{ id: memoryId, vector }]);
        gen.pending.delete(memoryId);
      } else {
        gen.index.removeMany([memoryId]);
        gen.pending.set(memoryId, key);
      }
    };
    const erased = event.metadata.erased === true && (event.type === 'MemoryWritten' || event.type === 'MemoryUpdated');
    // An erased memory (ADR 19) keeps no vector: an embedding says something about its text.
    if (erased) {
      gen.index.removeMany([event.data.memoryId]);
      gen.pending.delete(event.data.memoryId);
    } else if (event.type === 'MemoryWritten') embed(event.data.memoryId, source.keyOf(event.data.text));
    else if (event.type === 'MemoryUpdated' && event.data.changes.text !== undefined) {
      embed(event.data.memoryId, source.keyOf(event.data.changes.text));
    } else if (event.type === 'MemoryEmbeddingRepaired') {
      const key = gen.pending.get(event.data.memoryId);
      if (key) embed(event.data.memoryId, key);
    } else if (event.type === 'MemoryForgotten') {
      gen.index.removeMany([event.data.memoryId]);
      gen.pending.delete(event.data.memoryId);
    }
    gen.checkpoint = event.globalPosition;
  }
}

export function toSnapshot(gen: VectorGeneration, source: VectorSource): Snapshot {
  return {
    header: {
      generation: gen.generation,
      checkpoint: gen.checkpoint.toString(),
      fingerprint: source.fingerprint,
      dimension: gen.index.dimension,
      ids: gen.index.ids(),
      pending: [...gen.pending.entries()],
    },
    index: gen.index.toBuffer(),
  };
}

/** Canonical: ids sorted, each with its vector's bytes, then the pending ids. */
export function vectorDigest(gen: VectorGeneration): string {
  const hash = createHash('sha256');
  const entries = gen.index.entries().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const { id, vector } of entries) hash.update(`${id}\n`).update(Buffer.from(vector.buffer));
  hash.update('pending\n');
  for (const [id, key] of [...gen.pending.entries()].sort()) hash.update(`${id} ${key}\n`);
  return hash.digest('hex');
}
