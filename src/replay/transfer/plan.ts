import type { ImportRow } from './format.js';
import type { InvalidRow, ParsedImport } from './parse.js';

type Scoped = Pick<ImportRow, 'text' | 'sessionId' | 'personaId'>;

export interface Duplicate {
  readonly row: number;
  /** `store` when a live memory already holds it, else the earlier row of the file. */
  readonly of: 'store' | number;
}

export interface ImportPlan {
  readonly format: ParsedImport['format'];
  readonly fresh: ParsedImport['rows'];
  readonly duplicates: Duplicate[];
  readonly invalid: InvalidRow[];
}

/** Duplicates are the same (content, session, persona). */
export const dedupKey = (m: Scoped): string => JSON.stringify([m.text, m.sessionId, m.personaId]);

/**
 * Splits valid rows into new ones and duplicates, of the store's live memories (found by
 * `existing`, given the candidate texts) or of an earlier row of the same file.
 */
export function planImport(parsed: ParsedImport, existing: (texts: readonly string[]) => readonly Scoped[]): ImportPlan {
  const inStore = new Set(existing([...new Set(parsed.rows.map((r) => r.data.text))]).map(dedupKey));
  const firstRow = new Map<string, number>();
  const fresh: ParsedImport['rows'][number][] = [];
  const duplicates: Duplicate[] = [];
  for (const entry of parsed.rows) {
    const key = dedupKey(entry.data);
    const earlier = firstRow.get(key);
    if (inStore.has(key)) duplicates.push({ row: entry.row, of: 'store' });
    else if (earlier !== undefined) duplicates.push({ row: entry.row, of: earlier });
    else {
      firstRow.set(key, entry.row);
      fresh.push(entry);
    }
  }
  return { format: parsed.format, fresh, duplicates, invalid: parsed.invalid };
}
