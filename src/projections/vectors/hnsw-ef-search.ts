import type { Index } from 'faiss-node';

/**
 * faiss-node cannot set `efSearch` (faiss 1.7.3 keeps it at 16, which finds about 6 of the 10
 * nearest hash embeddings): it is written into the serialised index and read back. The layout of
 * IndexHNSWFlat ("IHNf") in 1.7.3: the index header, then the HNSW's vectors (assign_probas,
 * cum_nneighbor_per_level, levels, offsets, neighbors, each a u64 count then its items), then
 * entry_point, max_level, efConstruction, efSearch (i32 each). Checked against faiss's defaults
 * (efConstruction 40, efSearch positive), so a build with another layout is refused, not misread.
 */
export function withEfSearch(index: Index, efSearch: number, fromBuffer: (bytes: Buffer) => Index): Index {
  const bytes = index.toBuffer();
  if (bytes.subarray(0, 4).toString('latin1') !== 'IHNf') throw new Error('approximate vector index: not an IndexHNSWFlat');
  let at = 4 + 4 + 8 + 8 + 8 + 1 + 4;
  for (const itemBytes of [8, 4, 4, 8, 4]) at += 8 + Number(bytes.readBigUInt64LE(at)) * itemBytes;
  at += 8;
  // efSearch is 16 until set here (the bench sets it again on a built index: then any positive value).
  const current = bytes.readInt32LE(at + 4);
  if (bytes.readInt32LE(at) !== 40 || current < 1 || current > 1_000_000) throw new Error('approximate vector index: unknown HNSW layout (efConstruction/efSearch not where faiss 1.7.3 keeps them)');
  bytes.writeInt32LE(efSearch, at + 4);
  return fromBuffer(bytes);
}
