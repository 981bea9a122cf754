import { z } from 'zod';
import { lazy } from '../events/lazy.js';
import type { Reranker } from '../queries/recall/rank.js';

export const rerankConfigSchema = lazy(() =>
  z
    .object({
      provider: z.enum(['none', 'http']).default('none'),
      /** An OpenAI-compatible or Cohere-style service answering POST {baseUrl}/v1/rerank. */
      baseUrl: z.url().optional(),
      model: z.string().min(1).optional(),
      apiKey: z.string().optional(),
      timeoutMs: z.number().int().positive().default(10_000),
    })
    .strict()
    .refine((c) => c.provider === 'none' || (c.baseUrl !== undefined && c.model !== undefined), {
      message: 'baseUrl and model are required when provider is "http"',
      path: ['baseUrl'],
    }),
);

export type RerankConfig = z.output<ReturnType<typeof rerankConfigSchema>>;

const answerSchema = lazy(() =>
  z.object({
    results: z.array(z.object({ index: z.number().int().min(0), relevance_score: z.number() })),
  }),
);

/** Scores documents against the query with one request; a bad answer is an error, never a partial order. */
export function createHttpReranker(config: RerankConfig, fetchImpl: typeof fetch = fetch): Reranker {
  const url = `${(config.baseUrl ?? '').replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/rerank`;
  return {
    async rerank(query, documents) {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
        body: JSON.stringify({ model: config.model, query, documents: documents.map((d) => d.text), top_n: documents.length }),
        signal: AbortSignal.timeout(config.timeoutMs),
      });
      if (!response.ok) throw new Error(`rerank: HTTP ${response.status}`);
      const parsed = answerSchema().safeParse(await response.json().catch(() => null));
      if (!parsed.success) throw new Error(`rerank: malformed answer (${parsed.error.issues[0]?.message ?? 'invalid'})`);
      return parsed.data.results.map((r) => {
        const doc = documents[r.index];
        if (!doc) throw new Error(`rerank: answer names document ${r.index} of ${documents.length}`);
        return { id: doc.id, score: r.relevance_score };
      });
    },
  };
}

export function createReranker(config: RerankConfig): Reranker | null {
  return config.provider === 'http' ? createHttpReranker(config) : null;
}
