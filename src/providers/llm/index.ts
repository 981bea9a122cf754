import { z } from 'zod';
import { lazy } from '../../events/lazy.js';
import { parseOrThrow } from '../../events/errors.js';
import { createExtractiveSummarizer, extractiveDefaults } from './extractive.js';
import { identityAliasesSchema } from './identity.js';
import { createOpenAiChatSummarizer, openAiChatDefaults, type OpenAiChatDeps } from './openai-chat.js';
import type { LlmProvider } from './provider.js';

export * from './provider.js';
export { createExtractiveSummarizer, type ExtractiveOptions } from './extractive.js';
export { identityAliasesSchema, participantsOf, resolveSender, speakerLabel, type IdentityAliases } from './identity.js';
export { createOpenAiChatSummarizer, type OpenAiChatDeps, type OpenAiChatOptions } from './openai-chat.js';

const positiveInt = () => z.number().int().positive();
const nonNegative = () => z.number().min(0);
const d = openAiChatDefaults;

const openAiChatConfigSchema = lazy(() =>
  z
    .object({
      baseUrl: z.url({ protocol: /^https?$/ }),
      model: z.string().min(1),
      apiKey: z.string().min(1).optional(),
      timeoutMs: positiveInt().default(d.timeoutMs),
      maxRetries: z.number().int().min(0).max(20).default(d.maxRetries),
      retryBaseMs: nonNegative().default(d.retryBaseMs),
      maxBackoffMs: nonNegative().default(d.maxBackoffMs),
      maxInputChars: positiveInt().default(d.maxInputChars),
    })
    .strict(),
);

/** The `llm` settings: which summarizer turns conversation windows into memories, and its parameters. */
export const llmConfigSchema = lazy(() =>
  z
    .object({
      provider: z.enum(['extractive', 'openai']).default('extractive'),
      extractive: z.object({ maxSentences: positiveInt().max(50).default(extractiveDefaults.maxSentences) }).strict().optional(),
      openai: openAiChatConfigSchema().optional(),
      /** Platform sender id -> the person's one name, for both providers. */
      identityAliases: identityAliasesSchema().default({}),
    })
    .strict()
    .superRefine((config, ctx) => {
      if (config.provider === 'openai' && config.openai === undefined) {
        ctx.addIssue({ code: 'custom', path: ['openai'], message: 'required when provider is "openai" (baseUrl, model)' });
      }
    }),
);

export type LlmConfig = z.output<ReturnType<typeof llmConfigSchema>>;
export type LlmConfigInput = z.input<ReturnType<typeof llmConfigSchema>>;

/** Validates `config` (a ValidationError names the field, prefixed `llm.`) and makes the summarizer. */
export function createLlmProvider(config: LlmConfigInput = {}, deps: OpenAiChatDeps = {}): LlmProvider {
  return llmProviderFrom(parseOrThrow(llmConfigSchema(), config, 'llm'), deps);
}

/** The summarizer of settings already validated (a loaded configuration's `llm`). */
export function llmProviderFrom(parsed: LlmConfig, deps: OpenAiChatDeps = {}): LlmProvider {
  const identityAliases = parsed.identityAliases;
  switch (parsed.provider) {
    case 'extractive':
      return createExtractiveSummarizer({ identityAliases, maxSentences: parsed.extractive?.maxSentences ?? extractiveDefaults.maxSentences });
    case 'openai': {
      const openai = parsed.openai;
      if (!openai) throw new Error('unreachable: openai settings were validated');
      return createOpenAiChatSummarizer({ ...openai, identityAliases }, deps);
    }
  }
}
