import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openTestEngine, tempDir } from './support/engine.js';

type Engine = Awaited<ReturnType<typeof openTestEngine>>;

const words = ['tea', 'violin', 'Osaka', 'jazz', '长江大桥', '记忆', 'Alice', 'Bob', 'engineer', '咖啡'];
const memory = fc.record({
  session: fc.constantFrom('s1', 's2', 's3'),
  user: fc.constantFrom('u1', 'u2'),
  text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
  archived: fc.boolean(),
});
type Memory = { session: string; user: string; text: string; archived?: boolean };

/** A fresh engine holding `memories` (archived where asked), each memory's session and user by id, for `body`. */
async function withMemories(memories: readonly Memory[], body: (engine: Engine, owner: Map<string, Memory>) => Promise<void>): Promise<void> {
  const temp = tempDir();
  const engine = await openTestEngine(temp.dir);
  try {
    const owner = new Map<string, Memory>();
    for (const m of memories) {
      const { memoryId } = await engine.writeMemory({ text: m.text, sessionId: m.session, userId: m.user });
      owner.set(memoryId, m);
      if (m.archived) await engine.archiveMemory(memoryId);
    }
    await body(engine, owner);
  } finally {
    await engine.close();
    temp.remove();
  }
}

describe('recall scopes', () => {
  it('session mode never returns another session, user mode never another user', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(memory.map((m) => ({ ...m, archived: false })), { minLength: 1, maxLength: 12 }),
        fc.constantFrom(...words),
        fc.constantFrom('s1', 's2', 's3'),
        fc.constantFrom('u1', 'u2'),
        (memories, query, session, user) =>
          withMemories(memories, async (engine, owner) => {
            const bySession = await engine.recall({ query, scope: { mode: 'session', sessionId: session }, topK: 10 });
            expect(bySession.memories.every((r) => owner.get(r.memoryId)?.session === session)).toBe(true);
            const byUser = await engine.recall({ query, scope: { mode: 'user', userId: user }, topK: 10 });
            expect(byUser.memories.every((r) => owner.get(r.memoryId)?.user === user)).toBe(true);
            // The scope does not hide what it should show: a session's memories that match are found.
            const expected = memories.filter((m) => m.session === session && m.text.includes(query)).length;
            if (expected > 0) expect(bySession.memories.length).toBeGreaterThan(0);
          }),
      ),
      { numRuns: 60 },
    );
  });

  /*
   * A session or user search tells its matches by rowid from an index beside the FTS table (ADR 21)
   * instead of filtering the FTS table's own columns: it must keep exactly what the filter kept. The
   * global ranking filtered afterwards is that answer (bm25 takes its statistics from the whole
   * table either way, and filtering keeps the order).
   */
  it('a session or user keyword search is the global ranking filtered to the scope, for memories and graph entries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(memory, { minLength: 1, maxLength: 14 }), fc.subarray(words, { minLength: 1, maxLength: 3 }), (memories, terms) =>
        withMemories(memories, async (engine, owner) => {
          const query = terms.join(' ');
          const all = engine.indexes.keyword.search(query, { limit: 1000 });
          for (const scope of [{ sessionId: 's1' }, { sessionId: 's2' }, { userId: 'u1' }, { sessionId: 's3', userId: 'u2' }]) {
            const inScope = (id: string) => (!scope.sessionId || owner.get(id)?.session === scope.sessionId) && (!scope.userId || owner.get(id)?.user === scope.userId);
            expect(engine.indexes.keyword.search(query, { ...scope, limit: 3 })).toEqual(all.filter((h) => inScope(h.memoryId)).slice(0, 3));
          }
          const entries = engine.indexes.graph.searchAny(query, { limit: 1000 });
          for (const sessionId of ['s1', 's2', 's3']) {
            expect(engine.indexes.graph.searchAny(query, { sessionId, limit: 3 })).toEqual(entries.filter((e) => e.sessionId === sessionId).slice(0, 3));
          }
        }),
      ),
      { numRuns: 40 },
    );
  });
});
