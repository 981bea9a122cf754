import type { Statement } from 'better-sqlite3';

/** A match of an FTS5 query: its rowid and its bm25 (lower is better, as FTS5 gives it). */
export interface RankedRowid {
  readonly rowid: number;
  readonly bm25: number;
}

/**
 * The best `limit` matches of `match` in FTS5 table `fts` that pass `keep`, best first (ties by
 * rowid). Ranking needs only rowids and bm25, but a filter on an UNINDEXED column makes FTS5 read
 * every match's stored row; so the rowids are ranked alone first and only a window of the best
 * is read and filtered. When the window holds too few that pass, the caller's `filtered` query
 * (the filter inside the SQL, same order) answers instead: the filter always runs before the cut.
 */
export function rankedWithFilter<Row extends { readonly rowid: number }>(options: {
  readonly prepare: (sql: string) => Statement;
  readonly fts: string;
  /** The columns a row is read with (rowid among them), for `keep` and the caller. */
  readonly columns: string;
  readonly match: string;
  readonly limit: number;
  readonly keep: (row: Row) => boolean;
  readonly filtered: () => (Row & RankedRowid)[];
}): (Row & RankedRowid)[] {
  const { fts, limit } = options;
  // Twice the limit: most matches pass a status or persona filter, so one window nearly always suffices.
  const window = Math.max(2 * limit, 16);
  const ranked = options
    .prepare(`SELECT rowid, bm25(${fts}) AS bm25 FROM ${fts} WHERE ${fts} MATCH ? ORDER BY bm25, rowid LIMIT ?`)
    .all(options.match, window) as RankedRowid[];
  // Reading a stored FTS5 row decodes its whole record (the tokens too): about 15 µs a row at 10k
  // memories, as much as a third of the MATCH itself for a window of 62. So the rows are read only
  // as far down the window as needed: `limit` first (enough when all pass), then the rest.
  const read = options.prepare(`SELECT ${options.columns} FROM ${fts} WHERE rowid IN (SELECT value FROM json_each(?))`);
  const kept: (Row & RankedRowid)[] = [];
  for (let start = 0; start < ranked.length; start += limit) {
    const part = ranked.slice(start, start + limit);
    const rows = new Map((read.all(JSON.stringify(part.map((r) => r.rowid))) as (Row & { rowid: number })[]).map((row) => [row.rowid, row]));
    for (const hit of part) {
      const row = rows.get(hit.rowid);
      if (row !== undefined && options.keep(row)) kept.push({ ...row, ...hit });
      if (kept.length === limit) return kept;
    }
  }
  return ranked.length < window ? kept : options.filtered();
}
