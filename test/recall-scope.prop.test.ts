import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openTestEngine, tempDir } from './support/engine.js';

const words = ['tea', 'violin', 'Osaka', 'jazz', '长江大桥', '记忆', 'Alice', 'Bob', 'engineer', '咖啡'];
const memory = fc.record({
  session: fc.constantFrom('s1', 's2', 's3'),
  user: fc.constantFrom('u1', 'u2'),
  text: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
});

describe('recall scopes', () => {
  it('session mode never returns another session, user mode never another user', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(memory, { minLength: 1, maxLength: 12 }),
        fc.constantFrom(...words),
        fc.constantFrom('s1', 's2', 's3'),
        fc.constantFrom('u1', 'u2'),
        async (memories, query, session, user) => {
          const temp = tempDir();
          const engine = await openTestEngine(temp.dir);
          try {
            const owner = new Map<string, { session: string; user: string }>();
            for (const m of memories) {
              const { memoryId } = await engine.writeMemory({ text: m.text, sessionId: m.session, userId: m.user });
              owner.set(memoryId, m);
            }
            const bySession = await engine.recall({ query, scope: { mode: 'session', sessionId: session }, topK: 10 });
            expect(bySession.memories.every((r) => owner.get(r.memoryId)?.session === session)).toBe(true);
            const byUser = await engine.recall({ query, scope: { mode: 'user', userId: user }, topK: 10 });
            expect(byUser.memories.every((r) => owner.get(r.memoryId)?.user === user)).toBe(true);
            // The scope does not hide what it should show: a session's memories that match are found.
            const expected = memories.filter((m) => m.session === session && m.text.includes(query)).length;
            if (expected > 0) expect(bySession.memories.length).toBeGreaterThan(0);
          } finally {
            await engine.close();
            temp.remove();
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
