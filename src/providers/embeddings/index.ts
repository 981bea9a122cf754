import { z } from 'zod';
import { parseOrThrow } from '../../events/errors.js';
import { scriptNames } from '../../projections/text/scripts.js';
import type { EmbeddingCoverage } from './coverage.js';
import { createHashEmbeddingProvider, hashProviderDefaults } from './hash.js';
import { createOpenAiEmbeddingProvider, openAiDefaults, type OpenAiProviderDeps } from './openai.js';
import type { EmbeddingProvider } from './provider.js';
import { createUseLiteEmbeddingProvider, useLiteDefaults } from './use-lite.js';

export * from './provider.js';
export * from './coverage.js';
export { createEmbeddingCache, embedWithCache, embeddingCacheRows, type EmbeddingCache, type EmbedWithCacheOptions, type EmbedWithCacheResult } from './cache.js';
export { createHashEmbeddingProvider, type HashProviderOptions } from './hash.js';
export { createOpenAiEmbeddingProvider, type OpenAiEmbeddingProvider, type OpenAiProviderDeps, type OpenAiProviderOptions } from './openai.js';
export { createUseLiteEmbeddingProvider, type UseLiteProviderOptions } from './use-lite.js';

const positiveInt = z.number().int().positive();
const nonNegative = z.number().min(0);

const openAiConfigSchema = z
  .object({
    baseUrl: z.url({ protocol: /^https?$/ }),
    model: z.string().min(1),
    apiKey: z.string().min(1).optional(),
    dimension: positiveInt,
    timeoutMs: positiveInt.default(openAiDefaults.timeoutMs),
    retryBaseMs: nonNegative.default(openAiDefaults.retryBaseMs),
    requestDelayMs: nonNegative.default(openAiDefaults.requestDelayMs),
    maxRequestDelayMs: nonNegative.default(openAiDefaults.maxRequestDelayMs),
    maxRetries: z.number().int().min(0).max(20).default(openAiDefaults.maxRetries),
    maxBackoffMs: nonNegative.default(openAiDefaults.maxBackoffMs),
    batchSize: positiveInt.max(2048).default(openAiDefaults.batchSize),
  })
  .strict();

/** The `embedding` settings: which provider makes vectors, and its parameters. */
export const embeddingConfigSchema = z
  .object({
    provider: z.enum(['hash', 'use-lite', 'openai']).default('hash'),
    /** For `hash` (default 256); `use-lite` is always 512; `openai` takes `openai.dimension`. */
    dimension: positiveInt.max(65_536).optional(),
    /** Overrides the provider's own limit (hash 8000, use-lite 2000, openai 4000). */
    maxInputChars: positiveInt.optional(),
    /**
     * The scripts the model reads (e.g. ["Latin"] for an English-only model), overriding what the
     * provider declares; text in other scripts skips the vector route.
     */
    scripts: z.array(z.enum(scriptNames)).min(1).optional(),
    openai: openAiConfigSchema.optional(),
  })
  .strict()
  .superRefine((config, ctx) => {
    if (config.provider === 'openai' && config.openai === undefined) {
      ctx.addIssue({ code: 'custom', path: ['openai'], message: 'required when provider is "openai" (baseUrl, model, dimension)' });
    }
    if (config.provider === 'use-lite' && config.dimension !== undefined && config.dimension !== useLiteDefaults.dimension) {
      ctx.addIssue({ code: 'custom', path: ['dimension'], message: `use-lite vectors have ${useLiteDefaults.dimension} dimensions` });
    }
    if (config.provider === 'openai' && config.dimension !== undefined && config.dimension !== config.openai?.dimension) {
      ctx.addIssue({ code: 'custom', path: ['dimension'], message: 'for openai set openai.dimension (and dimension, if given, to the same value)' });
    }
  });

export type EmbeddingConfig = z.output<typeof embeddingConfigSchema>;
export type EmbeddingConfigInput = z.input<typeof embeddingConfigSchema>;

/** Validates `config` (a ValidationError names the field, prefixed `embedding.`) and makes the provider. */
export function createEmbeddingProvider(config: EmbeddingConfigInput, deps: OpenAiProviderDeps = {}): EmbeddingProvider {
  const parsed = parseOrThrow(embeddingConfigSchema, config, 'embedding');
  const provider = providerFor(parsed, deps);
  if (!parsed.scripts) return provider;
  const coverage: EmbeddingCoverage = { scripts: parsed.scripts, languages: `${parsed.scripts.join(', ')} script` };
  // Assigned, not spread: a provider may carry getters (openai's request delay).
  return Object.assign(provider, { coverage });
}

function providerFor(parsed: EmbeddingConfig, deps: OpenAiProviderDeps): EmbeddingProvider {
  const maxInputChars = parsed.maxInputChars;
  switch (parsed.provider) {
    case 'hash':
      return createHashEmbeddingProvider({
        dimension: parsed.dimension ?? hashProviderDefaults.dimension,
        maxInputChars: maxInputChars ?? hashProviderDefaults.maxInputChars,
      });
    case 'use-lite':
      return createUseLiteEmbeddingProvider({ maxInputChars: maxInputChars ?? useLiteDefaults.maxInputChars });
    case 'openai': {
      const openai = parsed.openai;
      if (!openai) throw new Error('unreachable: openai settings were validated');
      return createOpenAiEmbeddingProvider({ ...openai, maxInputChars: maxInputChars ?? openAiDefaults.maxInputChars }, deps);
    }
  }
}
