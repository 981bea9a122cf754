import type { EventLog } from '../events/log/event-log.js';
import { applyVectorPage, emptyGeneration, type VectorSource } from '../projections/vectors/apply.js';
import { vectorDigest } from '../projections/vectors/generation-snapshot.js';
import type { VectorFeed } from '../projections/vectors/feed.js';
import type { ProjectionCheck } from './verify.js';

/** What verify needs of the live FAISS projection (the engine's vector store). */
export interface LiveVectors {
  readonly source: VectorSource;
  readonly feed: VectorFeed;
  catchUp(): Promise<void>;
  /** Reads and checks the snapshot's index bytes (a damaged one is set aside and replayed). */
  load(): Promise<void>;
  status(): { readonly name: string; readonly checkpoint: bigint; readonly failed?: { readonly position: bigint; readonly error: string } | null };
  digest(): string;
}

/**
 * The vector projection lives in memory and in snapshot files, not in SQLite: its live index is
 * caught up, then the log is replayed up to the same checkpoint into a fresh in-memory index with
 * the same vector source, and the two canonical digests (ids, vector bytes, pending ids) compared.
 */
export async function checkVectors(log: EventLog, vectors: LiveVectors, pageSize = 1000): Promise<ProjectionCheck> {
  const { name } = vectors.status();
  let position = 0n;
  let live: string | null = null;
  try {
    await vectors.load();
    await vectors.catchUp();
    const { checkpoint, failed } = vectors.status();
    position = checkpoint;
    live = vectors.digest();
    // Stopped at an event it could not read or apply (ADR 23): named, not compared.
    if (failed) return { name, position, status: 'failed', live, replayed: null, detail: `live stopped at log position ${failed.position}: ${failed.error}` };
    const fresh = emptyGeneration(0, vectors.source);
    for (;;) {
      const page = await log.readAll({ from: fresh.checkpoint + 1n, to: position, limit: pageSize });
      applyVectorPage(fresh, page, vectors.source, vectors.feed);
      if (page.length < pageSize) break;
    }
    const replayed = vectorDigest(fresh);
    return { name, position, status: replayed === live ? 'ok' : 'mismatch', live, replayed };
  } catch (error) {
    return { name, position, status: 'failed', live, replayed: null, detail: (error as Error).message };
  }
}
