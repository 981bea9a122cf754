import fc from 'fast-check';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineProjections, type MemoryEngine } from '../src/engine/engine.js';
import { tempDir } from './support/engine.js';
import { engineLogKinds, type EngineHost } from './support/log-kinds.js';

const words = ['tea', 'violin', 'Osaka', 'jazz', '长江大桥', 'Alice', 'engineer', '咖啡'];
const memory = fc.record({
  user: fc.constantFrom('u0', 'u1', 'u2'),
  session: fc.constantFrom('s0', 's1', 's2'),
  persona: fc.constantFrom('p0', 'p1'),
  words: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 }),
  marker: fc.stringMatching(/^[0-9a-f]{10}$/),
});
type Memory = { user: string; session: string; persona: string; text: string; marker: string; id: string };
const kinds = ['user', 'session', 'persona'] as const;
type Kind = (typeof kinds)[number];
const subjectOf = (m: Memory, kind: Kind): string => (kind === 'user' ? m.user : kind === 'session' ? m.session : m.persona);

/** A clock that stands still (recency weights stay equal across recalls) and fresh ids. */
function stillEnvironment() {
  let n = 0;
  return { now: () => new Date(Date.UTC(2026, 0, 1)), newId: () => `id-${(n += 1)}` };
}

/** Session and user scopes none of whose memories fall under the erased subject, each with its queries. */
function untouchedScopes(memories: readonly Memory[], erased: ReadonlySet<string>) {
  const scopes = [
    ...['u0', 'u1', 'u2'].map((userId) => ({ mode: 'user' as const, userId, of: (m: Memory) => m.user === userId })),
    ...['s0', 's1', 's2'].map((sessionId) => ({ mode: 'session' as const, sessionId, of: (m: Memory) => m.session === sessionId })),
  ];
  return scopes
    .filter((s) => memories.some(s.of) && !memories.some((m) => s.of(m) && erased.has(m.id)))
    .map(({ of, ...scope }) => ({ scope, queries: [...words.slice(0, 4), ...memories.filter(of).slice(0, 2).map((m) => `zq${m.marker}`)] }));
}

async function recallAll(engine: MemoryEngine, scopes: ReturnType<typeof untouchedScopes>): Promise<string[][]> {
  const results: string[][] = [];
  for (const { scope, queries } of scopes) {
    for (const query of queries) results.push((await engine.recall({ query, scope, topK: 10 })).memories.map((m) => m.memoryId));
  }
  return results;
}

const filesOf = (dir: string): Buffer[] => {
  const db = join(dir, 'livingmemory.db');
  return [db, `${db}-wal`].filter(existsSync).map((path) => readFileSync(path));
};
const found = (markers: readonly string[], blobs: readonly Buffer[]): string[] =>
  markers.filter((marker) => blobs.some((b) => b.includes(Buffer.from(marker, 'utf8'))));

async function digests(engine: MemoryEngine): Promise<string[]> {
  await engine.indexes.catchUp();
  return [...engineProjections.map((p) => engine.runner.digest(p.name)), engine.indexes.vectors.digest()];
}

describe.each(engineLogKinds)('erasure by crypto-shredding ($name)', (kind) => {
  let host: EngineHost;
  beforeAll(async () => {
    host = await kind.start();
  });
  afterAll(async () => {
    await host.stop();
  });
  it('leaves no byte of an erased subject in the file, its WAL, a later backup or export; other recalls stay the same', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(memory, { minLength: 3, maxLength: 10, selector: (m) => m.marker }),
        fc.constantFrom(...kinds),
        fc.nat(),
        async (drafts, kind, pick) => {
          const temp = tempDir();
          // The backup goes beside the store: outputs never land in the data dir (ADR 24).
          const store = join(temp.dir, 'store');
          const engine = await host.open(store, { env: stillEnvironment() });
          try {
            const memories: Memory[] = [];
            for (const d of drafts) {
              const text = `${d.words.join(' ')} zq${d.marker} ${d.words[0]}`;
              const { memoryId } = await engine.writeMemory({ text, userId: d.user, sessionId: d.session, personaId: d.persona, keyFacts: [`fact zq${d.marker}`] });
              memories.push({ ...d, text, id: memoryId });
            }
            const target = subjectOf(memories[pick % memories.length] as Memory, kind);
            const erasedMemories = memories.filter((m) => subjectOf(m, kind) === target);
            const erasedIds = new Set(erasedMemories.map((m) => m.id));
            const markers = erasedMemories.map((m) => `zq${m.marker}`);
            const scopes = untouchedScopes(memories, erasedIds);
            const before = await recallAll(engine, scopes);
            await engine.flushAccess();
            // The scan sees plaintext where the read models hold it, so finding nothing later means something.
            expect(found(markers, filesOf(store))).toEqual(markers);

            const receipt = await engine.eraseSubject({ kind, id: target, reason: 'right to be forgotten' });
            expect(receipt.counts.memories).toBe(erasedMemories.length);
            const backup = join(temp.dir, 'after.db');
            await engine.backup(backup);
            const exported = Buffer.from(JSON.stringify({
              documents: engine.documents.list({ limit: 10_000 }),
              events: await engine.log.readAll({ limit: 100_000 }),
            }, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
            expect(found(markers, [...filesOf(store), readFileSync(backup), exported])).toEqual([]);

            expect(await recallAll(engine, scopes)).toEqual(before);
            for (const m of erasedMemories) expect(engine.documents.get(m.id)).toMatchObject({ status: 'erased', text: '[erased]' });
            const survivor = memories.find((m) => !erasedIds.has(m.id));
            if (survivor) expect(engine.documents.get(survivor.id)?.text).toBe(survivor.text);

            // The subject comes back: a new key, readable; then incremental equals replay.
            const back = await engine.writeMemory({ text: 'back again zqreturn', [`${kind}Id`]: target });
            expect(engine.documents.get(back.memoryId)).toMatchObject({ status: 'active', text: 'back again zqreturn' });
            // Recalls above queued access events; flushed now, both digests are taken at one head.
            await engine.flushAccess();
            const live = await digests(engine);
            for (const p of engineProjections) await engine.runner.rebuild(p.name, 'test');
            await engine.indexes.vectors.rebuild();
            expect(await digests(engine)).toEqual(live);
          } finally {
            await engine.close();
            temp.remove();
          }
        },
      ),
      { numRuns: kind.runs(5) },
    );
  });
});
