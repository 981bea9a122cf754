import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DocumentMetadata } from '../src/projections/documents.js';
import { documentsProjection } from '../src/projections/documents.js';
import { ftsProjection } from '../src/projections/fts.js';
import { sourcesProjection } from '../src/projections/sources.js';
import { toFtsDocument } from '../src/projections/text/tokenizer.js';
import { historyArbitrary, playHistory } from './support/histories.js';
import { openTestStore, type TestStore } from './support/store.js';

const runs = { numRuns: 150 };
const open = () => openTestStore([documentsProjection, ftsProjection, sourcesProjection]);

interface FtsRow {
  memory_id: string;
  tokens: string;
  session_id: string | null;
  status: string;
}

const rows = <R>(store: TestStore, sql: string): R[] => store.db.prepare(sql).all() as R[];

/** The documents that are not forgotten, as the FTS table should hold them. */
function expectedFts(store: TestStore): FtsRow[] {
  const table = store.runner.liveTable('documents', 'documents');
  return rows<{ memory_id: string; text: string; metadata: string }>(store, `SELECT * FROM ${table} ORDER BY memory_id`)
    .map((row) => ({ row, meta: JSON.parse(row.metadata) as DocumentMetadata }))
    .filter(({ meta }) => meta.status !== 'forgotten')
    .map(({ row, meta }) => ({ memory_id: row.memory_id, tokens: toFtsDocument(row.text), session_id: meta.sessionId, status: meta.status }));
}

describe('fts and memory_sources over random histories', () => {
  it('(a) rebuilt from the log, each has the digest it had incrementally', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, async (history) => {
        const store = open();
        try {
          await playHistory(store.log, history, () => store.runner.catchUp());
          await store.runner.catchUp();
          for (const name of ['fts', 'memory_sources']) {
            const incremental = store.runner.digest(name);
            const rebuilt = await store.runner.rebuild(name);
            expect(rebuilt.digest).toBe(incremental);
            expect(store.runner.digest(name)).toBe(incremental);
          }
        } finally {
          store.close();
        }
      }),
      runs,
    );
  });

  it('(b) FTS holds exactly the memories that are not forgotten, with their current text, scope and status', async () => {
    await fc.assert(
      fc.asyncProperty(historyArbitrary, async (history) => {
        const store = open();
        try {
          await playHistory(store.log, history, () => store.runner.catchUp());
          await store.runner.catchUp();
          const fts = store.runner.liveTable('fts', 'livingmemory_memories_fts');
          const actual = rows<FtsRow>(store, `SELECT memory_id, tokens, session_id, status FROM ${fts} ORDER BY memory_id`);
          const expected = expectedFts(store);
          expect(actual.map((r) => r.memory_id)).toEqual(expected.map((r) => r.memory_id));
          expect(actual).toEqual(expected);
          const sources = store.runner.liveTable('memory_sources', 'memory_sources');
          const withSources = rows<{ memory_id: string }>(store, `SELECT memory_id FROM ${sources} ORDER BY memory_id`);
          expect(withSources.map((r) => r.memory_id)).toEqual(expected.map((r) => r.memory_id));
        } finally {
          store.close();
        }
      }),
      runs,
    );
  });
});
