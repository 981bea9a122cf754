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
  const kept: (Row & RankedRowid)[] = [];
  for (let start = 0; start < ranked.length; start += limit) {
    const part = ranked.slice(start, start + limit);
    const rows = rowsOf<Row>(options, part);
    for (const hit of part) {
      const row = rows.get(hit.rowid);
      if (row !== undefined && options.keep(row)) kept.push({ ...row, ...hit });
      if (kept.length === limit) return kept;
    }
  }
  return ranked.length < window ? kept : options.filtered();
}

type Read = { readonly prepare: (sql: string) => Statement; readonly fts: string; readonly columns: string };

/** The stored rows of the given matches, by rowid. */
function rowsOf<Row extends { readonly rowid: number }>(options: Read, hits: readonly RankedRowid[]): Map<number, Row> {
  const read = options.prepare(`SELECT ${options.columns} FROM ${options.fts} WHERE rowid IN (SELECT value FROM json_each(?))`);
  return new Map((read.all(JSON.stringify(hits.map((r) => r.rowid))) as Row[]).map((row) => [row.rowid, row]));
}

/**
 * The best `limit` matches of `match` among the rowids `within` selects (a subquery on an indexed
 * table beside the FTS table, `params` its parameters), best first (ties by rowid). A scope that
 * keeps few matches (a session) is checked by rowid alone, so only the kept rows are read; the
 * filter inside the FTS query read the stored row of every match (issue 16: 100k memories).
 */
export function rankedWithin<Row extends { readonly rowid: number }>(
  options: Read & { readonly match: string; readonly limit: number; readonly within: string; readonly params: readonly unknown[] },
): (Row & RankedRowid)[] {
  const { fts } = options;
  // `+rowid`: a rowid constraint FTS5 is offered runs the whole MATCH (and bm25's statistics) once per rowid.
  const ranked = options
    .prepare(`SELECT rowid, bm25(${fts}) AS bm25 FROM ${fts} WHERE ${fts} MATCH ? AND +rowid IN (${options.within}) ORDER BY bm25, rowid LIMIT ?`)
    .all(options.match, ...options.params, options.limit) as RankedRowid[];
  const rows = rowsOf<Row>(options, ranked);
  return ranked.flatMap((hit) => {
    const row = rows.get(hit.rowid);
    return row === undefined ? [] : [{ ...row, ...hit }];
  });
}
