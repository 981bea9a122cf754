import { z } from 'zod';
import { lazy } from '../../events/lazy.js';
import type { ProviderFingerprint } from '../embeddings/provider.js';
import { ProviderError } from '../errors.js';

/** One message of a window to summarize, as the conversation store holds it. */
export interface SummaryMessage {
  readonly messageId: string;
  readonly index: number;
  readonly role: 'user' | 'assistant' | 'system' | 'tool';
  /** The person behind the message after identity aliases are applied; null when unknown. */
  readonly senderId: string | null;
  readonly senderName: string | null;
  readonly content: string;
  /** ISO-8601 time the host sent the message. */
  readonly at: string;
}

export interface SummaryRequest {
  readonly sessionId: string;
  /** Group chats name every speaker; private chats are one user and the assistant. */
  readonly chatType: 'private' | 'group';
  readonly messages: readonly SummaryMessage[];
}

/** What a summarizer must answer; an LLM's JSON is checked against this before anything is written. */
export const summarySchema = lazy(() =>
  z
    .object({
      summary: z.string().refine((s) => s.trim().length > 0, 'must not be empty'),
      topics: z.array(z.string().min(1).max(500)).max(50),
      keyFacts: z.array(z.string().min(1).max(500)).max(100),
      participants: z.array(z.string().min(1).max(500)).max(100),
      sentiment: z.string().max(100).nullable(),
      importance: z.number().min(0).max(1),
    })
    .strict(),
);

export type Summary = z.output<ReturnType<typeof summarySchema>>;

/** Turns a window of messages into one long-term memory; every implementation sits behind this. */
export interface LlmProvider {
  readonly fingerprint: ProviderFingerprint;
  /** Rejects with LlmProviderError when the answer is unusable; never returns a half-checked summary. */
  summarize(request: SummaryRequest, signal?: AbortSignal): Promise<Summary>;
}

/** A summarizer that failed or answered something unusable; the message names what was wrong. */
export class LlmProviderError extends ProviderError {
  override readonly name = 'LlmProviderError';
  constructor(provider: string, detail: string, options?: { cause?: unknown }) {
    super(provider, 'llm', detail, options);
  }
}
