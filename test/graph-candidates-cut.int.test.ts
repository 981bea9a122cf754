import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeSources } from '../src/engine/recall.js';
import { createHashEmbeddingProvider } from '../src/providers/embeddings/index.js';
import { graphCandidates } from '../src/queries/recall/graph-candidates.js';
import { graphRoute } from '../src/queries/recall/routes.js';
import { inScope, scopeFilter } from '../src/queries/recall/scope.js';
import { openTestEngine, tempDir } from './support/engine.js';

type Engine = Awaited<ReturnType<typeof openTestEngine>>;

const people = ['Alice', 'Bob', 'Carol', 'Dmitri', 'Erin', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Keiko', 'Lena'];
const places = ['Osaka', 'Lisbon', 'Nairobi', 'Quito'];
const things = ['violin', 'tennis', 'jazz', 'ramen', 'chess', 'sourdough'];

// Many memories naming the same few people, pairs met more or less often (edges of different
// weights): each node has many neighbours and each neighbour many memories.
const memories = Array.from({ length: 90 }, (_, i) => {
  const a = people[i % 4] as string;
  const b = people[4 + ((i * i + 3 * i) % 8)] as string;
  return { text: `${a} met ${b} in ${places[i % places.length]} to talk about ${things[(i * 7) % things.length]}`, participants: [a, b] };
});

describe('the graph route reads neighbours best first and stops when its list is final', () => {
  const temp = tempDir();
  let engine: Engine;
  beforeAll(async () => {
    engine = await openTestEngine(temp.dir);
    for (const [i, memory] of memories.entries()) await engine.writeMemory({ ...memory, sessionId: `s${i % 3}`, userId: i % 2 === 0 ? 'u' : 'v' });
  }, 60_000);
  afterAll(async () => {
    await engine.close();
    temp.remove();
  });

  it('gives a prefix of the whole list, at least `limit` long when cut', () => {
    let cuts = 0;
    const word = fc.constantFrom(...people, ...places, ...things, 'met', 'about');
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 20 }), fc.constantFrom(1, 2), fc.constantFrom({}, { personaId: 'p' }, { sessionId: 's1' }), (words, limit, hops, filter) => {
        const request = { query: words.join(' '), filter, limit, hops: hops as 1 | 2 };
        const cut = graphCandidates(engine.indexes.graph, request);
        const whole = graphCandidates(engine.indexes.graph, { ...request, whole: true });
        expect(whole.cut).toBe(false);
        expect(cut.ranked).toEqual(whole.ranked.slice(0, cut.ranked.length));
        if (cut.cut) {
          cuts += 1;
          expect(cut.ranked.length).toBeGreaterThanOrEqual(limit);
        } else expect(cut.ranked).toEqual(whole.ranked);
      }),
      { numRuns: 300, seed: 17 },
    );
    // The batched reading is what this tests: most of these lists are cut.
    expect(cuts).toBeGreaterThan(30);
  });

  it("keeps, in the route, the first `limit` in scope of the whole list, also when the scope drops most of a cut one", async () => {
    const sources = routeSources(engine.indexes, createHashEmbeddingProvider());
    const noVector = Promise.reject(new Error('no vector'));
    noVector.catch(() => undefined);
    for (const query of ['Alice', 'Bob', 'Erin', 'Alice Osaka', 'who met Grace', 'Keiko sourdough chess']) {
      for (const scope of [{ mode: 'global' as const }, { mode: 'user' as const, userId: 'v' }, { mode: 'session' as const, sessionId: 's2' }]) {
        for (const limit of [1, 3, 8]) {
          const filter = scopeFilter(scope);
          if (!filter) throw new Error('no filter');
          const whole = graphCandidates(engine.indexes.graph, { query, filter, limit, hops: 1, whole: true }).ranked;
          const docs = engine.indexes.documents.getMany(whole.map((h) => h.id));
          const expected = whole.filter((h) => {
            const doc = docs.get(h.id);
            return doc?.status === 'active' && inScope(doc, filter);
          });
          const route = await graphRoute(sources, query, noVector, filter, limit, 1);
          expect(route.keyword).toEqual(expected.slice(0, limit));
        }
      }
    }
  });
});
