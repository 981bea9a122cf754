import { canonicalJson } from '../embeddings/provider.js';
import { jsonHeaders, postJson, v1Url } from '../http/post-json.js';
import { httpClient, type HttpClientDeps } from '../http/client-deps.js';
import { withRetries } from '../http/retry.js';
import { parseChatAnswer } from './chat-answer.js';
import type { IdentityAliases } from './identity.js';
import { groupSystemPrompt, privateSystemPrompt, promptVersion, renderConversation } from './prompts.js';
import { LlmProviderError, type LlmProvider } from './provider.js';

export interface OpenAiChatOptions {
  /** Server root, e.g. `http://127.0.0.1:8080`; requests go to `{baseUrl}/v1/chat/completions` (a trailing `/v1` is not doubled). */
  readonly baseUrl: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; omitted when absent (local servers). */
  readonly apiKey?: string | undefined;
  /** Per request, body included; default 60 000. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, for 408, 429, 5xx, timeouts, network errors and malformed answers; default 3. */
  readonly maxRetries?: number;
  /** Backoff before retry k (0-based) is retryBaseMs * 2^k, capped at maxBackoffMs; default 1 000. */
  readonly retryBaseMs?: number;
  /** Cap for one backoff or Retry-After wait; default 60 000. */
  readonly maxBackoffMs?: number;
  /** Budget of the rendered conversation; older messages beyond it are left out. Default 24 000. */
  readonly maxInputChars?: number;
  readonly identityAliases?: IdentityAliases;
}

/** Clock, sleep and fetch the provider uses; see HttpClientDeps. */
export type OpenAiChatDeps = HttpClientDeps;

export const openAiChatDefaults = { timeoutMs: 60_000, maxRetries: 3, retryBaseMs: 1_000, maxBackoffMs: 60_000, maxInputChars: 24_000 } as const;

function checked(options: OpenAiChatOptions) {
  const d = openAiChatDefaults;
  const o = {
    timeoutMs: options.timeoutMs ?? d.timeoutMs,
    maxRetries: options.maxRetries ?? d.maxRetries,
    retryBaseMs: options.retryBaseMs ?? d.retryBaseMs,
    maxBackoffMs: options.maxBackoffMs ?? d.maxBackoffMs,
    maxInputChars: options.maxInputChars ?? d.maxInputChars,
  };
  for (const key of ['timeoutMs', 'maxInputChars'] as const) {
    if (!Number.isInteger(o[key]) || o[key] < 1) throw new RangeError(`openai llm ${key} must be a positive integer, got ${o[key]}`);
  }
  for (const key of ['maxRetries', 'retryBaseMs', 'maxBackoffMs'] as const) {
    if (!Number.isFinite(o[key]) || o[key] < 0) throw new RangeError(`openai llm ${key} must be a non-negative number, got ${o[key]}`);
  }
  if (!Number.isInteger(o.maxRetries)) throw new RangeError(`openai llm maxRetries must be an integer, got ${o.maxRetries}`);
  if (options.model.length === 0) throw new RangeError('openai llm model must not be empty');
  return o;
}

/**
 * Any OpenAI-compatible `POST /v1/chat/completions`, asked for a JSON object
 * (`response_format: json_object`, temperature 0) with a group or private system prompt. The
 * answer is used only when its content parses and passes summarySchema; a malformed answer, 408,
 * 429, 5xx, a timeout or a network error is retried with exponential backoff (429 honours
 * Retry-After), other 4xx fail at once. An aborted signal rejects with its reason.
 */
export function createOpenAiChatSummarizer(options: OpenAiChatOptions, deps: OpenAiChatDeps = {}): LlmProvider {
  const o = checked(options);
  const aliases = options.identityAliases ?? {};
  const { sleep, nowMs, fetchFn } = httpClient(deps);
  const url = v1Url(options.baseUrl, 'chat/completions');
  const headers = jsonHeaders(options.apiKey);
  const policy = { maxRetries: o.maxRetries, retryBaseMs: o.retryBaseMs, maxBackoffMs: o.maxBackoffMs, sleep };

  return {
    fingerprint: {
      provider: 'openai',
      model: options.model,
      dimension: null,
      settings: { endpoint: url, prompt: promptVersion, temperature: 0, maxInputChars: o.maxInputChars, identityAliases: canonicalJson(aliases) },
    },
    async summarize(request, signal) {
      if (!request.messages.some((m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim().length > 0)) {
        throw new LlmProviderError('openai', `session ${request.sessionId}: nothing to summarize (no user or assistant text in the window)`);
      }
      const body = {
        model: options.model,
        messages: [
          { role: 'system', content: request.chatType === 'group' ? groupSystemPrompt : privateSystemPrompt },
          { role: 'user', content: renderConversation(request, aliases, o.maxInputChars) },
        ],
        response_format: { type: 'json_object' },
        temperature: 0,
      };
      const attempt = async () => {
        const sent = await postJson({ fetch: fetchFn, url, headers, body, timeoutMs: o.timeoutMs, nowMs, signal });
        return sent.ok ? parseChatAnswer(sent.value.text, sent.value.headers, nowMs()) : sent;
      };
      const result = await withRetries(policy, attempt, signal);
      if (result.ok) return result.value;
      const label = `${url} model ${options.model}, session ${request.sessionId}`;
      const { failure, attempts } = result;
      if (!failure.retry) throw new LlmProviderError('openai', `${label}: ${failure.detail}`);
      throw new LlmProviderError('openai', `${label} failed after ${attempts} attempts; last: ${failure.detail}`);
    },
  };
}
