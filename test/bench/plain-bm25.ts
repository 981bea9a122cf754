import Database from 'better-sqlite3';
import { cutWords } from '../../src/projections/text/jieba.js';
import { englishStopWords, isChineseStopWord } from '../../src/projections/text/stopwords.js';

/*
 * The honest baseline of issue 16: a plain SQLite FTS5 BM25 (porter stemmer over unicode61, an
 * English stop list dropped from the query) over exactly the texts the engine indexed, in its own
 * in-memory database. Chinese has no spaces for unicode61 to split on, so Han runs are cut into
 * jieba's words first (and Chinese stop words dropped), as any plain Chinese BM25 must. No fusion,
 * no bigrams, no weighting: what a keyword search gives on its own.
 */

const han = /\p{Script=Han}/u;

/** Words as the baseline sees them: jieba's cut for text with Han characters, whitespace-separated. */
function words(text: string): string[] {
  const normal = text.normalize('NFKC').toLowerCase();
  const parts = han.test(normal) ? cutWords(normal) : [normal];
  return parts.flatMap((p) => p.split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length > 0);
}

export interface PlainBm25 {
  search(query: string, limit: number): { id: string; score: number }[];
  close(): void;
}

/** Indexes `docs` (id, text) into a fresh in-memory FTS5 table. */
export function plainBm25(docs: Iterable<{ readonly id: string; readonly text: string }>): PlainBm25 {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, body, tokenize = 'porter unicode61')`);
  const insert = db.prepare('INSERT INTO docs (id, body) VALUES (?, ?)');
  db.transaction(() => {
    for (const d of docs) insert.run(d.id, words(d.text).join(' '));
  })();
  const query = db.prepare('SELECT id, bm25(docs) AS rank FROM docs WHERE docs MATCH ? ORDER BY rank, id LIMIT ?');
  return {
    search(text, limit) {
      const terms = [...new Set(words(text).filter((w) => !englishStopWords.has(w) && !isChineseStopWord(w)))];
      if (terms.length === 0) return [];
      const match = terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
      // bm25() is lower for better matches; negated so that higher is better, as elsewhere.
      return (query.all(match, limit) as { id: string; rank: number }[]).map((r) => ({ id: r.id, score: -r.rank }));
    },
    close: () => db.close(),
  };
}
