/** A provider (embeddings, llm, reranker) that failed or answered something unusable; the message names what was wrong. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    role: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${provider} ${role}: ${detail}`, options);
  }
}
