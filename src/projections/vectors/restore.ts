import { emptyGeneration, restoreGeneration, type VectorGeneration, type VectorSource } from './apply.js';
import { openSnapshot, type OpenedSnapshot } from './snapshot.js';

export interface Restored {
  readonly gen: VectorGeneration;
  readonly fingerprint: string | null;
  readonly legacy?: true;
  /** The snapshot whose index bytes are still unread (a lazy restore). */
  readonly unread?: OpenedSnapshot;
}

export interface RestoreOptions {
  readonly file: string;
  readonly generation: number;
  readonly source: VectorSource;
  /** Read only the header (checked by its own digest); the index bytes wait for `gen.index.load()`. */
  readonly lazy: boolean;
  /** The log's head read synchronously, when the log lives in the same database. */
  readonly head: (() => bigint) | undefined;
  /** Moves a damaged file aside and records why. */
  readonly setAside: (error: unknown) => void;
}

/**
 * A generation from its snapshot file, or an empty generation when there is none or it cannot be
 * trusted: a damaged file is set aside and the generation replays the log from the start (ADR 24).
 */
export function restoreFile(options: RestoreOptions): Restored {
  let snapshot: OpenedSnapshot | undefined;
  try {
    snapshot = openSnapshot(options.file, options.generation);
    // Ahead of the log (its WAL lost frames, an older database beside newer snapshots): it holds
    // vectors of events that no longer exist, and would skip the positions written next.
    const head = options.head?.();
    if (snapshot && head !== undefined && BigInt(snapshot.summary.checkpoint) > head) {
      throw new Error(`its checkpoint ${snapshot.summary.checkpoint} is ahead of the log's head ${head}`);
    }
    if (snapshot) {
      const gen = restoreGeneration(snapshot);
      // An older format was read whole: its bytes are checked now, as before.
      const later = options.lazy && !snapshot.legacy;
      if (!later) gen.index.load();
      return { gen, fingerprint: snapshot.summary.fingerprint, ...(snapshot.legacy ? { legacy: true as const } : {}), ...(later ? { unread: snapshot } : {}) };
    }
  } catch (error) {
    snapshot?.close();
    options.setAside(error);
  }
  return { gen: emptyGeneration(options.generation, options.source), fingerprint: null };
}
