import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openTestEngine, tempDir } from './support/engine.js';

const words = ['tea', 'violin', 'Osaka', 'jazz', 'tennis', '长江大桥', '咖啡', 'Alice', 'Bob', 'engineer'];
const memory = fc.record({
  session: fc.constantFrom('s1', 's2', 's3'),
  user: fc.constantFrom('u1', 'u2'),
  text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
  archived: fc.boolean(),
});

/*
 * A session or user search tells its matches by rowid from an index beside the FTS table (ADR 21)
 * instead of filtering the FTS table's own columns: it must keep exactly what the filter kept. The
 * global ranking filtered afterwards is that answer (bm25 takes its statistics from the whole table
 * either way, and filtering keeps the order).
 */
describe('scoped keyword searches on the read path', () => {
  it('a session or user search is the global ranking filtered to the scope, for memories and graph entries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(memory, { minLength: 1, maxLength: 14 }), fc.subarray(words, { minLength: 1, maxLength: 3 }), async (memories, terms) => {
        const temp = tempDir();
        const engine = await openTestEngine(temp.dir);
        try {
          const owner = new Map<string, { session: string; user: string }>();
          for (const m of memories) {
            const { memoryId } = await engine.writeMemory({ text: m.text, sessionId: m.session, userId: m.user });
            owner.set(memoryId, { session: m.session, user: m.user });
            if (m.archived) await engine.archiveMemory(memoryId);
          }
          const query = terms.join(' ');
          const all = engine.indexes.keyword.search(query, { limit: 1000 });
          for (const scope of [{ sessionId: 's1' }, { sessionId: 's2' }, { userId: 'u1' }, { sessionId: 's3', userId: 'u2' }]) {
            const kept = all.filter((h) => (!scope.sessionId || owner.get(h.memoryId)?.session === scope.sessionId) && (!scope.userId || owner.get(h.memoryId)?.user === scope.userId));
            expect(engine.indexes.keyword.search(query, { ...scope, limit: 3 })).toEqual(kept.slice(0, 3));
          }
          const entries = engine.indexes.graph.searchAny(query, { limit: 1000 });
          for (const sessionId of ['s1', 's2', 's3']) {
            const kept = entries.filter((e) => e.sessionId === sessionId);
            expect(engine.indexes.graph.searchAny(query, { sessionId, limit: 3 })).toEqual(kept.slice(0, 3));
          }
        } finally {
          await engine.close();
          temp.remove();
        }
      }),
      { numRuns: 40 },
    );
  });
});
