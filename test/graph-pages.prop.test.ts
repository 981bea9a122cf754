import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stampEvents, type EventBody } from '../src/commands/decider.js';
import type { DomainEvent } from '../src/events/catalog.js';
import { streams } from '../src/events/streams.js';
import { createGenerationWriter } from '../src/projections/apply.js';
import { projectionDigest } from '../src/projections/digest.js';
import { createGenerationStore } from '../src/projections/generations.js';
import { graphProjection } from '../src/projections/graph.js';
import { testMetadata } from './support/decider-spec.js';
import { openTestStore } from './support/store.js';

/*
 * The graph settles merged weights, adjacency and nodes once per page (graph-settle.ts): whatever
 * the page sizes, the rows must be those of settling after every event. Hand-made events reach
 * what extraction never makes: weights that are not whole (float sums depend on their order),
 * nodes no edge or entry links, one node key with two values, entry ids given twice or taken over
 * from another memory, re-links and forgets that leave merged rows at zero.
 */

const keys = ['person:a', 'person:b', 'topic:x', 'topic:y', 'fact:f'];
const memoryIds = ['m0', 'm1', 'm2'];

const edge = fc.record({
  source: fc.constantFrom(...keys),
  target: fc.constantFrom(...keys),
  relation: fc.constantFrom('participant' as const, 'co_occurrence' as const),
  weight: fc.constantFrom(1, 0.1, 0.2, 0.3, 2.5, 1e-9),
});

const linked = fc.record({
  kind: fc.constant('link' as const),
  memory: fc.constantFrom(...memoryIds),
  nodes: fc.uniqueArray(fc.record({ key: fc.constantFrom(...keys), value: fc.constantFrom('v1', 'v2') }), { selector: (n) => n.key, maxLength: 4 }),
  edges: fc.array(edge, { maxLength: 5 }),
  entries: fc.array(fc.record({ entry: fc.constantFrom('e0', 'e1', 'e2'), nodeKeys: fc.uniqueArray(fc.constantFrom(...keys), { maxLength: 3 }) }), { maxLength: 3 }),
});
const forgotten = fc.record({ kind: fc.constant('forget' as const), memory: fc.constantFrom(...memoryIds) });
type Step = { kind: 'link'; memory: string; nodes: { key: string; value: string }[]; edges: { source: string; target: string; relation: 'participant' | 'co_occurrence'; weight: number }[]; entries: { entry: string; nodeKeys: string[] }[] } | { kind: 'forget'; memory: string };

function bodyOf(step: Step): EventBody {
  if (step.kind === 'forget') return { type: 'MemoryForgotten', schemaVersion: 1, data: { memoryId: step.memory, reason: 'test' } } as EventBody;
  const nodeType = (key: string) => key.split(':')[0] as 'person' | 'topic' | 'fact';
  return {
    type: 'GraphEntriesLinked',
    schemaVersion: 1,
    data: {
      memoryId: step.memory,
      sessionId: null,
      personaId: null,
      nodes: step.nodes.map((n) => ({ key: n.key, nodeType: nodeType(n.key), value: n.value })),
      edges: step.edges,
      // Entry ids are shared across memories on purpose: a later link takes one over.
      entries: step.entries.map((e) => ({ entryId: e.entry, text: `text of ${e.entry}`, nodeKeys: e.nodeKeys })),
    },
  } as EventBody;
}

describe('graph projection: settling per page', () => {
  it('gives the rows of settling after every event, whatever the page sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof({ weight: 4, arbitrary: linked }, { weight: 1, arbitrary: forgotten }), { minLength: 1, maxLength: 25 }),
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 10 }),
        async (steps, sizes) => {
          const store = openTestStore([graphProjection]);
          try {
            for (const [n, step] of (steps as Step[]).entries()) {
              await store.log.append(streams.memory(step.memory), stampEvents<DomainEvent>([bodyOf(step)], testMetadata(n)));
            }
            const events = await store.log.readAll({ limit: 10_000 });
            const generations = createGenerationStore(store.db);
            const digestAfter = (pages: (typeof events)[]): string => {
              const gen = store.db.transaction(() => generations.create('graph', graphProjection.version, 'building')).immediate();
              const writer = createGenerationWriter(store.db, generations, graphProjection, gen);
              writer.init();
              for (const page of pages) writer.applyPage(page);
              expect(writer.failure()).toBeNull();
              return projectionDigest(store.db, graphProjection, gen.generation);
            };
            const oneByOne = digestAfter(events.map((e) => [e]));
            const pages: (typeof events)[] = [];
            for (let at = 0, i = 0; at < events.length; i += 1) {
              const size = sizes[i % sizes.length] as number;
              pages.push(events.slice(at, at + size));
              at += size;
            }
            expect(digestAfter(pages)).toBe(oneByOne);
            expect(digestAfter([events])).toBe(oneByOne);
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});
