import type { ServerResponse } from 'node:http';
import { startJsonServer, type SeenRequest, type TestServer } from './json-server.js';

/** What the stand-in received: an OpenAI chat completions request. */
export interface ChatBody {
  readonly model: string;
  readonly stream?: boolean;
  readonly messages: { role: string; content: string | { type: string; text?: string }[] }[];
}

/** What the stand-in does next: answer, fail with a status and OpenAI error body, or never answer. */
export type StandInMode = { kind: 'answer' } | { kind: 'fail'; status: number; message: string } | { kind: 'hang' } | { kind: 'cut-stream' };

export const lastUserText = (body: ChatBody): string => {
  const last = [...body.messages].reverse().find((m) => m.role === 'user');
  const content = last?.content ?? '';
  return typeof content === 'string' ? content : (content[0]?.text ?? '');
};

/** Every text the request carried (message contents and parts), to look for injected memories. */
export const allText = (body: ChatBody): string =>
  body.messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.text ?? '').join('\n'))).join('\n');

function answer(seen: SeenRequest<ChatBody>, res: ServerResponse): void {
  const text = `I heard: ${lastUserText(seen.body)}`;
  if (seen.body.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const words = text.split(/(?<= )/);
    for (const [i, w] of words.entries()) {
      const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: seen.body.model, choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: w } : { content: w }, finish_reason: null }] };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }
    res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: seen.body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
    res.end('data: [DONE]\n\n');
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    id: 'c1', object: 'chat.completion', created: 1, model: seen.body.model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }));
}

/**
 * A stand-in for an OpenAI-compatible LLM server (no real model runs here), on 127.0.0.1: it
 * answers "I heard: <the last user text>", streamed or not, and can fail or hang on demand.
 */
export async function startChatStandIn(): Promise<TestServer<ChatBody> & { mode: StandInMode }> {
  const state: { mode: StandInMode } = { mode: { kind: 'answer' } };
  const server = await startJsonServer<ChatBody>((seen, res) => {
    const mode = state.mode;
    if (mode.kind === 'hang') return 'hang';
    if (mode.kind === 'fail') {
      res.writeHead(mode.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: mode.message, type: 'requests', param: null, code: 'stand_in_failure' } }));
      return;
    }
    if (mode.kind === 'cut-stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'partial ' }, finish_reason: null }] })}\n\n`);
      return 'hang';
    }
    answer(seen, res);
  }, 1);
  return {
    ...server,
    get mode() {
      return state.mode;
    },
    set mode(m: StandInMode) {
      state.mode = m;
    },
  };
}
