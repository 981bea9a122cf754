import { afterEach, describe, expect, it } from 'vitest';
import { createUseLiteEmbeddingProvider } from '../src/providers/embeddings/use-lite.js';
import { bestRoute, evaluateSet, writeSet, type EvalSet, type Layout } from './eval/evaluate.js';
import { enLife } from './eval/en-life.js';
import { enDays } from './eval/en-days.js';
import { enWork } from './eval/en-work.js';
import { zhLife } from './eval/zh-life.js';
import { zhWork } from './eval/zh-work.js';
import { openTestEngine, tempDir, testEnvironment } from './support/engine.js';

let temp: ReturnType<typeof tempDir> | undefined;
afterEach(() => temp?.remove());

const fixed = (n: number) => n.toFixed(3);

const dayS = 86_400;

/** The set measured `laterDays` after its notes were written (0: right after). */
async function measure(set: EvalSet, layout: Layout, provider?: 'use-lite', laterDays = 0) {
  temp = tempDir();
  const env = testEnvironment();
  const engine = await openTestEngine(temp.dir, { env, ...(provider ? { embeddingProvider: createUseLiteEmbeddingProvider() } : {}) });
  await writeSet(engine, set, layout, env);
  env.calls += laterDays * dayS;
  const f = await evaluateSet(engine, set);
  await engine.close();
  temp.remove();
  const row = (name: string, r: { at5: number; at10: number }) => `${name} ${fixed(r.at5)}/${fixed(r.at10)}`;
  console.log(`${set.name} ${layout} ${provider ?? 'hash'}${laterDays ? ` +${laterDays}d` : ''}: ${row('bm25', f.bm25)} ${row('keyword', f.keyword)} ${row('vector', f.vector)} ${row('full', f.full)}`);
  return f;
}

/*
 * Issue 16: the full recall is never worse than the best single route (plain BM25 over the same
 * texts, the keyword route, the vector route), at 5 and at 10, whether the notes were written in no
 * session or all in one (cause 2: notes of one session lent each other context); on the Chinese
 * set also at least 0.85 at 5.
 */
describe('recall on the evaluation sets', () => {
  for (const layout of ['no-session', 'one-session'] as const) {
    it(`zh-life, ${layout}: full recall >= the best route, and >= 0.85 at 5`, async () => {
      const f = await measure(zhLife, layout);
      const best = bestRoute(f);
      expect(f.full.at5).toBeGreaterThanOrEqual(Math.max(best.at5, 0.85));
      expect(f.full.at10).toBeGreaterThanOrEqual(best.at10);
    });

    it(`en-life, ${layout}: full recall >= the best route`, async () => {
      const f = await measure(enLife, layout);
      const best = bestRoute(f);
      expect(f.full.at5).toBeGreaterThanOrEqual(best.at5);
      expect(f.full.at10).toBeGreaterThanOrEqual(best.at10);
    });
  }

  // Held out: written after the rules were chosen (on zh-life and en-life; on LoCoMo 0-4), and never used to choose them.
  for (const set of [enWork, enDays, zhWork]) {
    it(`${set.name} (held out): full recall >= the best route`, async () => {
      const f = await measure(set, 'no-session');
      const best = bestRoute(f);
      expect(f.full.at5).toBeGreaterThanOrEqual(best.at5);
      expect(f.full.at10).toBeGreaterThanOrEqual(best.at10);
    });
  }

  it('zh-life with use-lite: Chinese skips its vector route, so the full recall is the keyword route\'s', async () => {
    const f = await measure(zhLife, 'no-session', 'use-lite');
    expect(f.full.at5).toBeGreaterThanOrEqual(f.keyword.at5);
    expect(f.full.at10).toBeGreaterThanOrEqual(f.keyword.at10);
  });

  /*
   * A note stays recallable by its own text while it is active: its atoms aging out (a fact of
   * 270 days or less, e.g. "今年三岁") removes the atom route's evidence, not the note (issue 16:
   * dropped, recall@5 fell from 0.867 to 0.692 a month after writing).
   */
  for (const set of [zhLife, enLife]) {
    it(`${set.name}, a month after writing: the same full recall as right after`, async () => {
      const now = await measure(set, 'no-session');
      const later = await measure(set, 'no-session', undefined, 30);
      expect(later.full.at5).toBeGreaterThanOrEqual(now.full.at5);
      expect(later.full.at10).toBeGreaterThanOrEqual(now.full.at10);
    });
  }
});
