import { setImmediate } from 'node:timers/promises';
import { chainHash, genesisHash } from './hash-chain.js';
import { chainColumns, type LinkedRow } from './sqlite-chain-schema.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { decodeStoredEvent } from './validate.js';

/**
 * What broke: a row whose bytes no longer hash to its link, a position with no row (deleted,
 * or removed from a stream's tail), a row that hashes right but is no event, a page SQLite could not
 * read, or a link that differs from a hash anchored outside the store.
 */
export type ChainBreakKind = 'hash-mismatch' | 'missing' | 'unparsable' | 'unreadable' | 'anchor-mismatch';

export interface ChainBreak {
  readonly position: bigint;
  readonly kind: ChainBreakKind;
  readonly detail: string;
}

export interface ChainReport {
  readonly ok: boolean;
  /** Rows whose link was checked before the first break (all of them when ok). */
  readonly checked: bigint;
  /** The last link found intact: the log's head when ok. */
  readonly headPosition: bigint;
  /** That link's hash (hex); with headPosition, what to keep outside the store as an anchor. */
  readonly headHash: string;
  readonly firstBreak: ChainBreak | null;
}

export interface VerifyChainOptions {
  readonly pageSize?: number;
  /** A link recorded earlier (e.g. a previous report's head): the chain must still pass through it. */
  readonly anchor?: { readonly position: bigint; readonly hash: string };
  /**
   * Whether each row must also read as an event (default true). A fresh copy of a log checks its
   * links only: they prove it holds the rows of the log it was copied from (ADR 32).
   */
  readonly decode?: boolean;
}

/** The first thing wrong with one row, given the link before it; null when the row is sound. */
function checkRow(row: LinkedRow, expected: number, previous: string, { anchor, decode = true }: VerifyChainOptions): ChainBreak | null {
  const position = BigInt(expected);
  if (row.globalPosition !== expected) {
    return { position, kind: 'missing', detail: `no event at position ${expected}; the next stored one is at ${row.globalPosition}` };
  }
  const computed = chainHash(previous, row);
  if (computed !== row.hash) {
    return { position, kind: 'hash-mismatch', detail: `the row hashes to ${computed}, its stored link is ${String(row.hash)}` };
  }
  if (anchor?.position === position && row.hash !== anchor.hash.toLowerCase()) {
    return { position, kind: 'anchor-mismatch', detail: `the link is ${row.hash}, the anchor says ${anchor.hash}` };
  }
  try {
    if (decode) decodeStoredEvent(row, position);
  } catch (error) {
    return { position, kind: 'unparsable', detail: (error as Error).message };
  }
  return null;
}

/**
 * Recomputes the hash chain from the genesis link, page by page (memory stays bounded), and
 * stops at the first broken link. Then checks what the walk cannot see: events removed from the
 * end of a stream (the streams table still counts them) and an anchor beyond the head.
 */
export async function verifyHashChain(db: SqliteDatabase, options: VerifyChainOptions = {}): Promise<ChainReport> {
  const pageSize = options.pageSize ?? 1000;
  const page = db.prepare<[number, number], LinkedRow>(
    `SELECT ${chainColumns}, hash FROM events WHERE global_position > ? ORDER BY global_position LIMIT ?`,
  );
  let previous = genesisHash;
  let expected = 1;
  const report = (firstBreak: ChainBreak | null): ChainReport => ({
    ok: firstBreak === null,
    checked: BigInt(expected - 1),
    headPosition: BigInt(expected - 1),
    headHash: previous,
    firstBreak,
  });
  for (;;) {
    let rows: LinkedRow[];
    try {
      rows = page.all(expected - 1, pageSize);
    } catch (error) {
      return report({ position: BigInt(expected), kind: 'unreadable', detail: (error as Error).message });
    }
    for (const row of rows) {
      const broken = checkRow(row, expected, previous, options);
      if (broken) return report(broken);
      previous = String(row.hash);
      expected += 1;
    }
    if (rows.length < pageSize) break;
    await setImmediate();
  }
  return report(checkTail(db, BigInt(expected), options.anchor));
}

function checkTail(db: SqliteDatabase, next: bigint, anchor: VerifyChainOptions['anchor']): ChainBreak | null {
  const cut = db
    .prepare<[], { streamId: string; revision: number; last: number | null }>(
      `SELECT stream_id AS streamId, revision,
         (SELECT max(stream_revision) FROM events e WHERE e.stream_id = s.stream_id) AS last
       FROM streams s WHERE last IS NOT revision LIMIT 1`,
    )
    .get();
  if (cut) {
    const detail = `stream ${cut.streamId} is at revision ${cut.revision} but its last stored event is revision ${cut.last ?? 'none'}`;
    return { position: next, kind: 'missing', detail: `${detail}: events were removed from the end of the log` };
  }
  if (anchor && anchor.position >= next) {
    return { position: next, kind: 'missing', detail: `the anchor is at position ${anchor.position} but the log ends at ${next - 1n}` };
  }
  return null;
}
