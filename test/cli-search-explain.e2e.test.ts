import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { freshCli } from './support/cli.js';

// use-lite reads English only: the Chinese note is the one its vectors cannot place (issue 16).
const cli = freshCli('lmem-search-explain-', { LIVINGMEMORY_EMBEDDING_PROVIDER: 'use-lite', LIVINGMEMORY_MEMORY_SCOPE_MODE: 'global' });
afterAll(() => rmSync(cli.dataDir, { recursive: true, force: true }));

interface Hit {
  memoryId: string;
  score: number;
  explain: { final: number; pool: number; bonuses: Record<string, number>; notes?: string[] };
}

describe('lmem search: the scores shown are the final ones, and --explain shows each step (issue 13 part 6)', () => {
  for (const text of ['The user plays the cello in an orchestra', 'The user plays tennis on Saturdays', 'The user drinks espresso', '我养了一只金毛，名字叫豆豆']) {
    cli.run(['add', text]);
  }

  it('prints the final scores in the final order, and returns no hit without a score', () => {
    const hits = cli.json<{ memories: Hit[] }>(['search', 'the user plays the cello', '--explain', '--top-k', '10']).memories;
    expect(hits.length).toBeGreaterThan(1);
    expect(hits.every((h) => h.score > 0 && h.score === h.explain.final)).toBe(true);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    for (const h of hits) expect(h.explain.final).toBeCloseTo(h.explain.pool - (h.explain.bonuses['mmrPenalty'] ?? 0), 12);
    const text = cli.run(['search', 'the user plays the cello', '--explain']).stdout;
    for (const step of ['keyword raw (BM25)', 'vector raw (cosine)', 'fused', '= route score', 'route weight', 'both-routes bonus', 'conversation context', 'MMR penalty', 'final (shown)']) {
      expect(text).toContain(step);
    }
    const shown = [...text.matchAll(/^\d+\. \S+ {2}score (\d\.\d{3})/gm)].map((m) => m[1]);
    const finals = [...text.matchAll(/final \(shown\)\s+(\d\.\d{3})/g)].map((m) => m[1]);
    expect(finals).toEqual(shown);
  });

  it('says when the vector route was skipped for a query the provider cannot embed', () => {
    const [hit] = cli.json<{ memories: Hit[] }>(['search', '金毛', '--explain']).memories;
    expect(hit?.explain.notes?.[0]).toMatch(/vector route skipped: use-lite embeds English only/);
    expect(cli.run(['search', '金毛', '--explain']).stdout).toMatch(/note: vector route skipped/);
  });

  it('status shows the provider\'s reach, and start warns about the memories it cannot embed', () => {
    const status = cli.json<{ embedding: { provider: string; languages: string; uncovered: { script: string; memories: number }[] } }>(['status']);
    expect(status.embedding).toEqual({ provider: 'use-lite', languages: 'English', uncovered: [{ script: 'Han', memories: 1 }] });
    expect(cli.run(['status']).stdout).toMatch(/embedding: use-lite, embeds English; 1 memories in Han script skip the vector route/);
    expect(cli.run(['start']).stderr).toMatch(/warning: the embedding provider use-lite embeds English only/);
  });
});
