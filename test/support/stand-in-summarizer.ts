import type { LlmProvider, Summary, SummaryRequest } from '../../src/providers/llm/provider.js';

/**
 * A test stand-in for a summarizer, only for tests that need control no real summarizer gives:
 * `gate` holds a summary at the "LLM" until the test lets it finish or fail (to race summaries with
 * rollbacks, resets and shutdown, or to fail on demand); an abort rejects at once. Everything else,
 * the end-to-end test included, summarizes with the real offline extractive summarizer. Its
 * answer is deterministic: the people by `senderName`, and every message's text.
 */
export function standInSummarizer(options: { gate?: (request: SummaryRequest) => Promise<void> } = {}) {
  const calls: SummaryRequest[] = [];
  const provider: LlmProvider = {
    fingerprint: { provider: 'stand-in', model: 'test', dimension: null, settings: {} },
    async summarize(request, signal) {
      calls.push(request);
      if (options.gate) await abortable(options.gate(request), signal);
      signal?.throwIfAborted();
      return standInSummary(request);
    },
  };
  return { provider, calls };
}

/** What the stand-in answers for a window: a pure function of its messages. */
export function standInSummary(request: SummaryRequest): Summary {
  const people = [...new Set(request.messages.flatMap((m) => (m.senderName ? [m.senderName] : [])))];
  const day = request.messages[0]?.at.slice(0, 10) ?? 'unknown day';
  const said = request.messages.map((m) => `${m.senderName ?? m.role}: ${m.content}`).join(' | ');
  return {
    summary: `On ${day} ${people.length > 0 ? people.join(' and ') : 'the user'} talked. ${said}`.slice(0, 1500),
    topics: [],
    keyFacts: [],
    participants: request.chatType === 'group' ? people : people.slice(0, 1),
    sentiment: null,
    importance: 0.5,
  };
}

function abortable(work: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return work;
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
