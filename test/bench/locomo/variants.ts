/**
 * Recall settings variants on LoCoMo, side by side: each conversation is ingested once (and kept
 * in `--store DIR`, so a second run reopens it instead of ingesting again), then every question is
 * asked through plain BM25, each single route and every variant in the same process. This is how
 * ADR 10's candidates were measured: choose on one half of the conversations (`--dev=0-4`), report
 * the other half too, never tune to one question.
 *
 *   node dist/test/bench/locomo/variants.js --store /tmp/locomo-stores [--mode=turns|pipeline]
 *     [--conversations=0-9] [--dev=0-4] [--variants='{"name": {settings...}, ...}'] [--dataset=PATH]
 *     [--provider=hash|use-lite]
 *
 * Variants are partial RecallSettings over the defaults; `defaults` and `archival` are always run.
 * Data: LoCoMo (Maharana et al. 2024, CC BY-NC 4.0, research use).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../../../src/engine/engine.js';
import { createRecall } from '../../../src/engine/recall.js';
import { createEmbeddingProvider, type EmbeddingProvider } from '../../../src/providers/embeddings/index.js';
import { archivalRecallSettings, defaultRecallSettings, type RecallSettings } from '../../../src/queries/recall/types.js';
import { plainBm25 } from '../plain-bm25.js';
import { isEntryPoint, progress } from '../support.js';
import { defaultDatasetPath, loadLocomo, type Conversation } from './dataset.js';
import { ingestPipeline } from './ingest-pipeline.js';
import { benchEnvironment, ingestTurns, sourceTurnIds } from './pipeline.js';
import { alignedTable, fixed } from './table.js';

type Mode = 'turns' | 'pipeline';

function arg(name: string): string | undefined {
  const at = process.argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  const a = process.argv[at] ?? '';
  return a.includes('=') ? a.slice(a.indexOf('=') + 1) : process.argv[at + 1];
}

const range = (spec: string): number[] => {
  const [from, to] = spec.split('-').map(Number);
  return Array.from({ length: (to ?? from ?? 0) - (from ?? 0) + 1 }, (_, i) => (from ?? 0) + i);
};

/** Recall@5 and @10 sums per (series, split, category); category 0 is every category, split `all` both splits. */
class Tally {
  private readonly sums = new Map<string, { at5: number; at10: number; n: number; ms: number[] }>();
  add(series: string, split: string, category: number, at5: number, at10: number, ms?: number): void {
    for (const [sp, c] of [[split, 0], [split, category], ['all', 0], ['all', category]] as const) {
      const key = `${series}|${sp}|${c}`;
      const s = this.sums.get(key) ?? { at5: 0, at10: 0, n: 0, ms: [] };
      s.at5 += at5;
      s.at10 += at10;
      s.n += 1;
      if (ms !== undefined && c === 0) s.ms.push(ms);
      this.sums.set(key, s);
    }
  }
  get(series: string, split: string, category: number) {
    const s = this.sums.get(`${series}|${split}|${category}`);
    if (!s) return null;
    const sorted = [...s.ms].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
    return { at5: s.at5 / s.n, at10: s.at10 / s.n, n: s.n, p50: q(0.5), p95: q(0.95) };
  }
}

async function openConversation(store: string, mode: Mode, c: Conversation, provider: EmbeddingProvider): Promise<{ engine: MemoryEngine; env: ReturnType<typeof benchEnvironment> }> {
  const name = provider.fingerprint.provider;
  const dir = join(store, name === 'hash' ? `${mode}-${c.id}` : `${mode}-${name}-${c.id}`);
  const done = join(dir, 'ingested');
  const env = benchEnvironment(`${c.id}-${name}`, c.turns[0]?.at ?? Date.UTC(2023, 0, 1));
  const fresh = !existsSync(done);
  mkdirSync(dir, { recursive: true });
  // As the benchmark opens it; reopened, the scheduler stays off so no tick runs between ingest and questions.
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: dir } }), {
    env, maintenance: false, embeddingProvider: provider, ...(fresh ? {} : { scheduler: false }),
  });
  if (fresh) {
    const start = Date.now();
    if (mode === 'pipeline') await ingestPipeline(engine, c, env);
    else await ingestTurns(engine, c, env);
    writeFileSync(done, new Date().toISOString());
    progress(`${c.id}: ${mode} ingested in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  }
  env.setTime(c.turns.reduce((max, t) => Math.max(max, t.at ?? 0), 0) + 3_600_000);
  return { engine, env };
}

export async function runVariants(): Promise<void> {
  const store = arg('store');
  if (!store) throw new Error('--store DIR is required (ingested conversations are kept there)');
  const mode = (arg('mode') ?? 'turns') as Mode;
  const all = loadLocomo(arg('dataset') ?? defaultDatasetPath());
  const which = range(arg('conversations') ?? `0-${all.length - 1}`);
  const dev = new Set(range(arg('dev') ?? '0-4'));
  const given = JSON.parse(arg('variants') ?? '{}') as Record<string, Partial<RecallSettings>>;
  const variants: Record<string, Partial<RecallSettings>> = { defaults: {}, archival: archivalRecallSettings, ...given };
  const provider = createEmbeddingProvider({ provider: (arg('provider') ?? 'hash') as 'hash' | 'use-lite' });
  const tally = new Tally();
  for (const i of which) {
    const c = all[i];
    if (!c) continue;
    const split = dev.has(i) ? 'dev' : 'test';
    const { engine, env } = await openConversation(store, mode, c, provider);
    const turnsOf = new Map<string, string[]>();
    const turns = (id: string) => turnsOf.get(id) ?? (turnsOf.set(id, sourceTurnIds(engine, id)), turnsOf.get(id) ?? []);
    const share = (ids: readonly string[], evidence: readonly string[], k: number) => {
      const top = new Set(ids.slice(0, k).flatMap(turns));
      return evidence.filter((e) => top.has(e)).length / evidence.length;
    };
    const baseline = plainBm25(engine.indexes.documents.list({ status: 'active', limit: null }).map((d) => ({ id: d.memoryId, text: d.text })));
    const recalls = Object.entries(variants).map(([name, settings]) => ({
      name,
      recall: createRecall({ indexes: engine.indexes, provider: engine.provider, env, access: { record: () => undefined }, settings: { ...defaultRecallSettings, ...settings } }).recall,
    }));
    for (const q of c.questions) {
      const single = {
        bm25: baseline.search(q.question, 10).map((h) => h.id),
        keyword: engine.indexes.keyword.search(q.question, { limit: 10 }).map((h) => h.memoryId),
        vector: (await engine.indexes.vectors.search((await engine.provider.embed([q.question], 'query'))[0] ?? new Float32Array(), 10)).map((h) => h.id),
      };
      for (const [name, ids] of Object.entries(single)) tally.add(name, split, q.category, share(ids, q.evidence, 5), share(ids, q.evidence, 10));
      for (const r of recalls) {
        const start = process.hrtime.bigint();
        const ids = (await r.recall({ query: q.question, scope: { mode: 'global' }, topK: 10 })).memories.map((m) => m.memoryId);
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        tally.add(r.name, split, q.category, share(ids, q.evidence, 5), share(ids, q.evidence, 10), ms);
      }
    }
    baseline.close();
    await engine.close();
    progress(`${c.id} (${split}): ${c.questions.length} questions`);
  }
  const series = ['bm25', 'keyword', 'vector', ...Object.keys(variants)];
  for (const split of ['dev', 'test', 'all']) {
    const rows = series.flatMap((s) => {
      const of = (cat: number) => tally.get(s, split, cat);
      const total = of(0);
      if (!total) return [];
      return [[s, String(total.n), ...[1, 2, 3, 4].map((cat) => fixed(of(cat)?.at10 ?? NaN)), fixed(total.at5), fixed(total.at10), fixed(total.p50, 1), fixed(total.p95, 1)]];
    });
    if (rows.length === 0) continue;
    process.stdout.write(`\n${mode}, ${split}: recall@10 per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop), all @5 @10, ms p50 p95\n`);
    process.stdout.write(`${alignedTable(['series', 'n', 'c1', 'c2', 'c3', 'c4', '@5', '@10', 'p50', 'p95'], rows, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]))}\n`);
  }
}

if (isEntryPoint(import.meta.url)) {
  runVariants().catch((error: unknown) => {
    process.stderr.write(`variants: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
