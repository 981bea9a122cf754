import type { LlmProvider, Summary, SummaryRequest } from '../../src/engine/llm/provider.js';

/**
 * A test stand-in for an LLM summarizer (no LLM runs here): deterministic, names the people from
 * `senderName`, keeps every message's text so recall can find it. `gate` lets a test hold a
 * summary until it decides to let it finish or fail; an abort rejects at once.
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
