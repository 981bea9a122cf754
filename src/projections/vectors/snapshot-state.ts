import type { RecordedEvent } from '../../events/log/event-log.js';
import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import { withoutFsync } from '../../events/log/durability.js';
import type { VectorGeneration } from './apply.js';
import type { VectorFeed } from './feed.js';

// Low enough that the events a missed day's lifecycle tick appends at `start` are not replayed by every later call.
const staleAfter = 100n;

/**
 * What the live index's snapshot file holds, against the live index, and when to write it again.
 *
 * A catch-up over events that change no vector (accesses, conversations, a tick's decays) leaves
 * the index as its snapshot has it: instead of writing the whole index again to move its checkpoint,
 * a row says how far past the snapshot nothing changed (`vector_clean_through`), and an open starts
 * its catch-up there. The row names the snapshot's generation and checkpoint: any other snapshot
 * (a newer one, none, one set aside) does not match it, and the store replays from its own
 * checkpoint as before. It is bookkeeping beside `projection_generations`, not a read model: no
 * event makes it, and what it claims (no event in between changes this index) is a fact of the log.
 */
export function createSnapshotState(db: SqliteDatabase, name: string, lockedHead: (() => bigint) | undefined) {
  db.exec(`CREATE TABLE IF NOT EXISTS vector_clean_through (
    projection TEXT NOT NULL, generation INTEGER NOT NULL, snapshot_checkpoint INTEGER NOT NULL, through INTEGER NOT NULL,
    PRIMARY KEY (projection, generation))`);
  const read = db.prepare<[string, number], { snapshot_checkpoint: number; through: number }>(
    'SELECT snapshot_checkpoint, through FROM vector_clean_through WHERE projection = ? AND generation = ?',
  );
  const write = db.prepare(
    `INSERT INTO vector_clean_through (projection, generation, snapshot_checkpoint, through) VALUES (?, ?, ?, ?)
     ON CONFLICT (projection, generation) DO UPDATE SET snapshot_checkpoint = excluded.snapshot_checkpoint, through = excluded.through`,
  );
  // The checkpoint of each generation's snapshot on disk: a rebuild writes its shadow's beside the live one's.
  const persisted = new Map<number, bigint>();
  // The last position at which the live index changed (an event's vectors, an erasure in place, a switch).
  let lastChange = 0n;
  // How far the live generation is known unchanged past its snapshot (recorded, or opened from the record).
  let cleanThrough = { generation: 0, through: 0n };
  const snapshotAt = (live: VectorGeneration): bigint | undefined => persisted.get(live.generation);
  const clean = (live: VectorGeneration): boolean => {
    const at = snapshotAt(live);
    return at !== undefined && lastChange <= at;
  };
  const behind = (live: VectorGeneration): bigint => {
    const at = snapshotAt(live) ?? 0n;
    const through = cleanThrough.generation === live.generation && cleanThrough.through > at ? cleanThrough.through : at;
    return live.checkpoint - through;
  };

  return {
    /** The live generation as opened from its snapshot (or empty): it starts past the events known to change nothing. */
    opened(live: VectorGeneration, legacy: boolean): void {
      persisted.set(live.generation, live.checkpoint);
      // A format 1 file has no checksum: rewritten at the next close even when nothing changed.
      lastChange = legacy ? live.checkpoint + 1n : 0n;
      cleanThrough = { generation: live.generation, through: live.checkpoint };
      const row = lockedHead ? read.get(name, live.generation) : undefined;
      if (legacy || !row || BigInt(row.snapshot_checkpoint) !== live.checkpoint) return;
      const through = BigInt(row.through);
      if (through > live.checkpoint && through <= (lockedHead as () => bigint)()) live.checkpoint = cleanThrough.through = through;
    },
    /** A snapshot of `generation` at `checkpoint` is on disk now. */
    written(generation: number, checkpoint: bigint): void {
      persisted.set(generation, checkpoint);
    },
    /** The live index changed at `position` (an applied event's vectors, or an erasure in place at the checkpoint). */
    changedAt(position: bigint): void {
      if (position > lastChange) lastChange = position;
    },
    /** After a catch-up moved the live index: write the snapshot again (true), or record that nothing changed. */
    caughtUp(live: VectorGeneration): boolean {
      if (!clean(live)) return true;
      if (!lockedHead) return behind(live) > staleAfter;
      withoutFsync(db, () => write.run(name, live.generation, snapshotAt(live), live.checkpoint));
      cleanThrough = { generation: live.generation, through: live.checkpoint };
      return false;
    },
    /** At close: whether the snapshot must be written (changed, another generation, or far behind). */
    stale: (live: VectorGeneration): boolean => !clean(live) || behind(live) > staleAfter,
  };
}

/** The position of the last event of `page` past `checkpoint` that changes this feed's index, or 0. */
export function lastChangeIn(page: readonly RecordedEvent[], checkpoint: bigint, feed: VectorFeed): bigint {
  for (let i = page.length - 1; i >= 0; i -= 1) {
    const e = page[i] as RecordedEvent;
    if (e.globalPosition <= checkpoint) return 0n;
    if (feed.changes(e).length > 0) return e.globalPosition;
  }
  return 0n;
}
