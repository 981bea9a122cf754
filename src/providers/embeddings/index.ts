import { z } from 'zod';
import { lazy } from '../../events/lazy.js';
import { parseOrThrow } from '../../events/errors.js';
import { scriptNames } from '../../projections/text/scripts.js';
import type { EmbeddingCoverage } from './coverage.js';
import { createHashEmbeddingProvider, hashProviderDefaults } from './hash.js';
import { createOnnxEmbeddingProvider } from './onnx/index.js';
import { createOpenAiEmbeddingProvider, openAiDefaults, type OpenAiProviderDeps } from './openai.js';
import type { EmbeddingProvider } from './provider.js';
import { createUseLiteEmbeddingProvider, useLiteDefaults } from './use-lite.js';

export * from './provider.js';
export * from './coverage.js';
export { createEmbeddingCache, embedWithCache, embeddingCacheRows, type EmbeddingCache, type EmbedWithCacheOptions, type EmbedWithCacheResult } from './cache.js';
export { createHashEmbeddingProvider, type HashProviderOptions } from './hash.js';
export { createOpenAiEmbeddingProvider, type OpenAiEmbeddingProvider, type OpenAiProviderDeps, type OpenAiProviderOptions } from './openai.js';
export { createUseLiteEmbeddingProvider, type UseLiteProviderOptions } from './use-lite.js';
export { createOnnxEmbeddingProvider, type OnnxProviderOptions, type Pooling } from './onnx/index.js';

const positiveInt = () => z.number().int().positive();
const nonNegative = () => z.number().min(0);

const openAiConfigSchema = lazy(() =>
  z
    .object({
      baseUrl: z.url({ protocol: /^https?$/ }),
      model: z.string().min(1),
      apiKey: z.string().min(1).optional(),
      dimension: positiveInt(),
      timeoutMs: positiveInt().default(openAiDefaults.timeoutMs),
      retryBaseMs: nonNegative().default(openAiDefaults.retryBaseMs),
      requestDelayMs: nonNegative().default(openAiDefaults.requestDelayMs),
      maxRequestDelayMs: nonNegative().default(openAiDefaults.maxRequestDelayMs),
      maxRetries: z.number().int().min(0).max(20).default(openAiDefaults.maxRetries),
      maxBackoffMs: nonNegative().default(openAiDefaults.maxBackoffMs),
      batchSize: positiveInt().max(2048).default(openAiDefaults.batchSize),
    })
    .strict(),
);

/** Settings of `onnx` beyond `modelDir`; each one left out comes from the model directory's files. */
const onnxConfigSchema = lazy(() =>
  z
    .object({
      /** Relative to modelDir (e.g. onnx/model_quantized.onnx); default model.onnx, else onnx/model.onnx. */
      modelFile: z.string().min(1).optional(),
      pooling: z.enum(['mean', 'cls', 'max']).optional(),
      /** Put before every query / stored text (e5: "query: " and "passage: "). */
      queryPrefix: z.string().optional(),
      documentPrefix: z.string().optional(),
      maxTokens: positiveInt().optional(),
      batchSize: positiveInt().max(1024).optional(),
      threads: positiveInt().max(256).optional(),
    })
    .strict(),
);

/** The `embedding` settings: which provider makes vectors, and its parameters. */
export const embeddingConfigSchema = lazy(() =>
  z
    .object({
      provider: z.enum(['hash', 'use-lite', 'openai', 'onnx']).default('hash'),
      /** For `hash` (default 256); `use-lite` is always 512; `openai` takes `openai.dimension`; `onnx` reads it from the model. */
      dimension: positiveInt().max(65_536).optional(),
      /** Overrides the provider's own limit (hash 8000, use-lite 2000, openai 4000). */
      maxInputChars: positiveInt().optional(),
      /**
       * The scripts the model reads (e.g. ["Latin"] for an English-only model), overriding what the
       * provider declares; text in other scripts skips the vector route.
       */
      scripts: z.array(z.enum(scriptNames)).min(1).optional(),
      openai: openAiConfigSchema().optional(),
      /** For `onnx`: the directory holding the model's ONNX file and tokenizer.json. */
      modelDir: z.string().min(1).optional(),
      onnx: onnxConfigSchema().optional(),
    })
    .strict()
    .superRefine((config, ctx) => {
      if (config.provider === 'openai' && config.openai === undefined) {
        ctx.addIssue({ code: 'custom', path: ['openai'], message: 'required when provider is "openai" (baseUrl, model, dimension)' });
      }
      if (config.provider === 'onnx' && config.modelDir === undefined) {
        ctx.addIssue({ code: 'custom', path: ['modelDir'], message: 'required when provider is "onnx" (a directory with model.onnx and tokenizer.json)' });
      }
      if (config.provider === 'use-lite' && config.dimension !== undefined && config.dimension !== useLiteDefaults.dimension) {
        ctx.addIssue({ code: 'custom', path: ['dimension'], message: `use-lite vectors have ${useLiteDefaults.dimension} dimensions` });
      }
      if (config.provider === 'openai' && config.dimension !== undefined && config.dimension !== config.openai?.dimension) {
        ctx.addIssue({ code: 'custom', path: ['dimension'], message: 'for openai set openai.dimension (and dimension, if given, to the same value)' });
      }
    }),
);

export type EmbeddingConfig = z.output<ReturnType<typeof embeddingConfigSchema>>;
export type EmbeddingConfigInput = z.input<ReturnType<typeof embeddingConfigSchema>>;

/** Validates `config` (a ValidationError names the field, prefixed `embedding.`) and makes the provider. */
export function createEmbeddingProvider(config: EmbeddingConfigInput, deps: OpenAiProviderDeps = {}): EmbeddingProvider {
  return embeddingProviderFrom(parseOrThrow(embeddingConfigSchema(), config, 'embedding'), deps);
}

/** The provider of settings already validated (a loaded configuration's `embedding`). */
export function embeddingProviderFrom(parsed: EmbeddingConfig, deps: OpenAiProviderDeps = {}): EmbeddingProvider {
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
    case 'onnx': {
      if (parsed.modelDir === undefined) throw new Error('unreachable: modelDir was validated');
      const extra = { ...parsed.onnx, ...(maxInputChars ? { maxInputChars } : {}), ...(parsed.dimension ? { dimension: parsed.dimension } : {}) };
      return createOnnxEmbeddingProvider({ modelDir: parsed.modelDir, ...extra });
    }
  }
}
