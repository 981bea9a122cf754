import { createHash } from 'node:crypto';
import { turn } from '../turns.js';
import type { VectorGeneration, VectorSource } from './apply.js';
import type { Snapshot } from './snapshot.js';
import type { FileSnapshot } from './snapshot-async.js';

/*
 * A vector generation as its snapshot's header and as its digest: every id, what is pending, and
 * the items owned by another id (graph entries by their memory).
 */

/** Items owned by another id, in the map's order: sorted only for the digest (at 400k entries a sort held the event loop 100 ms). */
const ownedByAnother = ([id, owner]: [string, string]): boolean => id !== owner;
const ownedElsewhere = (gen: VectorGeneration): [string, string][] => [...gen.ownerOf].filter(ownedByAnother);
// Entries looked at between turns of the event loop: the 400k graph entries of 100k memories, at once, held it 77-95 ms.
const ownersSlice = 50_000;

/** `ownedElsewhere`, a slice of the map at a time: the caller holds the store's read lock, so nothing changes the map meanwhile. */
async function ownedElsewhereInSlices(gen: VectorGeneration): Promise<[string, string][]> {
  const out: [string, string][] = [];
  let seen = 0;
  for (const entry of gen.ownerOf) {
    if (ownedByAnother(entry)) out.push(entry);
    if ((seen += 1) % ownersSlice === 0) await turn();
  }
  return out;
}
const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The generation as a snapshot, as of the call: the caller keeps the generation unchanged until it
 * resolves. With `indexFile`, an index changed since restored is written there by faiss on its
 * thread (the snapshot names the file; `written` says when it is complete; adds asked for later
 * are made after it): on the event loop that was a rebuild's longest step (issue 17).
 */
export async function toSnapshot(gen: VectorGeneration, source: VectorSource, indexFile?: string): Promise<Snapshot | FileSnapshot> {
  const owners = await ownedElsewhereInSlices(gen);
  const header = {
    generation: gen.generation,
    checkpoint: gen.checkpoint.toString(),
    fingerprint: source.fingerprint,
    dimension: gen.index.dimension,
    // A copy: the index's own list grows with the next page, which may come before the header is written.
    ids: gen.index.ids().slice(),
    pending: [...gen.pending.entries()],
    ...(owners.length > 0 ? { owners } : {}),
  };
  const untouched = gen.index.untouched();
  if (untouched || indexFile === undefined) return { header, index: untouched ?? gen.index.toBuffer() };
  return { header, indexFile, written: gen.index.writeTo(indexFile) };
}

/** Canonical: ids sorted, each with its vector's bytes, then the pending ids, then owners other than the item itself. */
export function vectorDigest(gen: VectorGeneration): string {
  const hash = createHash('sha256');
  const entries = gen.index.entries().sort((a, b) => byKey(a.id, b.id));
  for (const { id, vector } of entries) hash.update(`${id}\n`).update(Buffer.from(vector.buffer));
  hash.update('pending\n');
  for (const [id, key] of [...gen.pending.entries()].sort()) hash.update(`${id} ${key}\n`);
  const owners = ownedElsewhere(gen).sort(([a], [b]) => byKey(a, b));
  if (owners.length > 0) hash.update('owners\n');
  for (const [id, owner] of owners) hash.update(`${id} ${owner}\n`);
  return hash.digest('hex');
}
