import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../src/engine/engine.js';
import { loadConfig } from '../src/engine/config.js';
import { createHashEmbeddingProvider } from '../src/providers/embeddings/index.js';
import { loadLocomo } from './bench/locomo/dataset.js';
import { benchEnvironment, ingestTurns } from './bench/locomo/pipeline.js';
import { plainBm25 } from './bench/plain-bm25.js';
import { tempDir } from './support/engine.js';

/*
 * Issue 16 on a LoCoMo slice: the full recall@5 and @10 are at least those of the best single
 * route (plain BM25, the keyword route, the vector route) over the same turns and questions. LoCoMo (CC BY-NC) is not in the repository: the test runs
 * on the file LMEM_LOCOMO names, else on ../shared/datasets/locomo10.json beside the repository
 * (where the bench looks), on the conversation LMEM_LOCOMO_CONVERSATION (default 1, conv-30:
 * 369 turns, 81 questions); without either file it is skipped.
 */
const path = process.env.LMEM_LOCOMO ?? fileURLToPath(new URL('../../shared/datasets/locomo10.json', import.meta.url));
const which = Number(process.env.LMEM_LOCOMO_CONVERSATION ?? 1);

let temp: ReturnType<typeof tempDir> | undefined;
afterEach(() => temp?.remove());

describe.runIf(path !== '' && existsSync(path))('recall on a LoCoMo slice', () => {
  it('full recall@5 and @10 >= the best route (turns, hash)', async () => {
    const conversation = loadLocomo(path)[which];
    if (!conversation) throw new Error(`no conversation ${which} in ${path}`);
    temp = tempDir();
    const env = benchEnvironment(conversation.id, conversation.turns[0]?.at ?? Date.UTC(2023, 0, 1));
    const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: temp.dir } }), { env, maintenance: false, embeddingProvider: createHashEmbeddingProvider() });
    const memoryOf = await ingestTurns(engine, conversation, env);
    env.setTime(conversation.turns.reduce((max, t) => Math.max(max, t.at ?? 0), 0) + 3_600_000);
    const turnOf = new Map([...memoryOf].map(([turn, memory]) => [memory, turn]));
    const at = (k: number, ids: readonly string[], evidence: readonly string[]) => {
      const top = new Set(ids.slice(0, k).map((id) => turnOf.get(id)));
      return evidence.filter((e) => top.has(e)).length / evidence.length;
    };
    const baseline = plainBm25(engine.indexes.documents.list({ status: 'active', limit: null }).map((d) => ({ id: d.memoryId, text: d.text })));
    const series = ['bm25', 'keyword', 'vector', 'full'] as const;
    const sums = Object.fromEntries(series.map((s) => [s, { at5: 0, at10: 0 }])) as Record<(typeof series)[number], { at5: number; at10: number }>;
    for (const q of conversation.questions) {
      const [v] = await engine.provider.embed([q.question]);
      const ranked = {
        bm25: baseline.search(q.question, 10).map((h) => h.id),
        keyword: engine.indexes.keyword.search(q.question, { limit: 10 }).map((h) => h.memoryId),
        vector: v ? (await engine.indexes.vectors.search(v, 10)).map((h) => h.id) : [],
        full: (await engine.recall({ query: q.question, scope: { mode: 'global' }, topK: 10 })).memories.map((m) => m.memoryId),
      };
      for (const s of series) {
        sums[s].at5 += at(5, ranked[s], q.evidence);
        sums[s].at10 += at(10, ranked[s], q.evidence);
      }
    }
    baseline.close();
    await engine.close();
    const n = conversation.questions.length;
    const mean = (s: (typeof series)[number], k: 'at5' | 'at10') => sums[s][k] / n;
    console.log(`${conversation.id} (${n} questions) recall@5/@10: ${series.map((s) => `${s} ${mean(s, 'at5').toFixed(3)}/${mean(s, 'at10').toFixed(3)}`).join(' ')}`);
    for (const k of ['at5', 'at10'] as const) expect(mean('full', k)).toBeGreaterThanOrEqual(Math.max(mean('bm25', k), mean('keyword', k), mean('vector', k)));
  }, 300_000);
});
