import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAiChatSummarizer, LlmProviderError, type OpenAiChatOptions, type Summary } from '../src/providers/llm/index.js';
import { groupSystemPrompt, privateSystemPrompt } from '../src/providers/llm/prompts.js';
import { closeJsonServers, fakeTime, startJsonServer, type Handler as JsonHandler } from './support/json-server.js';
import { englishGroup, window } from './support/summary-messages.js';

interface ChatRequest {
  model?: string;
  messages?: { role: string; content: string }[];
  response_format?: { type: string };
  temperature?: number;
}

type Handler = JsonHandler<ChatRequest>;

afterEach(closeJsonServers);

/** What the stand-in model answers: a valid summary (the real model cannot run here). */
const good: Summary = {
  summary: 'Alice got a job at Spotify and moves to Stockholm with her cat Mochi; Bob prefers tea.',
  topics: ['job', 'Stockholm'],
  keyFacts: ['Alice starts at Spotify on March 3.', "Bob's birthday is June 12."],
  participants: ['Alice', 'Bob'],
  sentiment: 'positive',
  importance: 0.7,
};

const reply = (res: ServerResponse, content: string, finish = 'stop'): void =>
  void res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }] }));

const ok: Handler = (_request, res) => reply(res, JSON.stringify(good));
const notJson: Handler = (_request, res) => reply(res, '{"summary": "Alice got a job", "topics": [', 'length');

const startServer = (handler: Handler) => startJsonServer<ChatRequest>(handler);

function summarizer(baseUrl: string, options: Partial<OpenAiChatOptions> = {}) {
  const time = fakeTime();
  const p = createOpenAiChatSummarizer({ baseUrl, model: 'test-chat', apiKey: 'sk-test', retryBaseMs: 10, timeoutMs: 2000, identityAliases: { 'tg:2': 'Alice' }, ...options }, time);
  return Object.assign(p, { time });
}

const group = window('group', englishGroup);

describe('openai-compatible summarizer (real local HTTP server, stand-in model)', () => {
  it('sends the group prompt and the named conversation, and returns the checked summary', async () => {
    const s = await startServer(ok);
    const p = summarizer(s.baseUrl);
    expect(await p.summarize(group)).toEqual(good);
    expect(s.requests).toHaveLength(1);
    const [request] = s.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body: { model: 'test-chat', response_format: { type: 'json_object' }, temperature: 0 } });
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    const [system, user] = request?.body.messages ?? [];
    expect(system).toEqual({ role: 'system', content: groupSystemPrompt });
    expect(system?.content).toMatch(/Never write "user"/);
    expect(user?.role).toBe('user');
    expect(user?.content).toContain('People: Alice, Bob.');
    expect(user?.content).toContain('[2026-03-01 10:00] Alice: Hey Bob!');
    expect(user?.content).toContain('[2026-03-01 10:01] Bob: Congrats!');
    // tg:2 writes as "Ally"; the alias names her Alice.
    expect(user?.content).toContain('[2026-03-01 10:02] Alice: Yes, I move to Stockholm');
    expect(user?.content).not.toContain('Ally');
    expect(p.fingerprint).toMatchObject({ provider: 'openai', model: 'test-chat', dimension: null, settings: { endpoint: `${s.baseUrl}/v1/chat/completions` } });
  });

  it('uses the private prompt for a private chat, and takes a ```json fence', async () => {
    const s = await startServer((_request, res) => reply(res, `\`\`\`json\n${JSON.stringify(good)}\n\`\`\``));
    const p = summarizer(`${s.baseUrl}/v1/`, { apiKey: undefined });
    const privateChat = window('private', [[null, null, 'I live in Lisbon.'], [null, null, 'Noted.', 'assistant']]);
    expect(await p.summarize(privateChat)).toEqual(good);
    const [system, user] = s.requests[0]?.body.messages ?? [];
    expect(system?.content).toBe(privateSystemPrompt);
    expect(user?.content).toContain('the user: I live in Lisbon.');
    expect(user?.content).toContain('the assistant: Noted.');
    expect(s.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('retries a malformed answer and returns the next good one', async () => {
    const s = await startServer((request, res) => (request.n === 1 ? notJson(request, res) : ok(request, res)));
    const p = summarizer(s.baseUrl);
    expect(await p.summarize(group)).toEqual(good);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]?.body).toEqual(s.requests[0]?.body);
    expect(p.time.sleeps).toEqual([10]);
  });

  it('gives up on answers that are never JSON, after every attempt, naming the problem', async () => {
    const s = await startServer(notJson);
    const p = summarizer(s.baseUrl);
    const failure = p.summarize(group);
    await expect(failure).rejects.toThrow(LlmProviderError);
    await expect(failure).rejects.toThrow(
      /session group-session failed after 4 attempts; last: malformed answer: the model's content is not JSON \(the model stopped at its token limit\)/,
    );
    expect(s.requests).toHaveLength(4);
    expect(p.time.sleeps).toEqual([10, 20, 40]);
  });

  it.each<[string, unknown, RegExp]>([
    ['an importance above 1', { ...good, importance: 1.5 }, /not a valid summary: importance: Too big/],
    ['an empty key fact', { ...good, keyFacts: ['ok', ''] }, /not a valid summary: keyFacts\.1: Too small/],
    ['a missing summary', { ...good, summary: undefined }, /not a valid summary: summary: /],
    ['an unknown key', { ...good, mood: 'happy' }, /not a valid summary: mood: Unrecognized key/],
    ['an array', [good], /not a valid summary: \(root\): /],
  ])('rejects JSON with %s, naming the field', async (_name, answer, message) => {
    const s = await startServer((_request, res) => reply(res, JSON.stringify(answer)));
    const p = summarizer(s.baseUrl, { maxRetries: 1 });
    await expect(p.summarize(group)).rejects.toThrow(message);
    expect(s.requests).toHaveLength(2);
  });

  it.each<[string, Handler, RegExp]>([
    ['a body that is not JSON', (_r, res) => void res.writeHead(200).end('<html>proxy</html>'), /malformed answer: body is not JSON/],
    ['no choices', (_r, res) => void res.writeHead(200).end('{"choices":[]}'), /choices\[0\]\.message\.content is not a string/],
  ])('rejects %s', async (_name, handler, message) => {
    const s = await startServer(handler);
    await expect(summarizer(s.baseUrl, { maxRetries: 0 }).summarize(group)).rejects.toThrow(message);
  });

  it('on 429 waits for Retry-After, then succeeds', async () => {
    const s = await startServer((request, res) => {
      if (request.n > 1) return ok(request, res);
      res.writeHead(429, { 'retry-after': '2' }).end('{"error":{"message":"Rate limit reached"}}');
    });
    const p = summarizer(s.baseUrl);
    expect(await p.summarize(group)).toEqual(good);
    expect(s.requests).toHaveLength(2);
    expect(p.time.sleeps).toEqual([2000]);
  });

  it('gives up after the retries of a 5xx', async () => {
    const s = await startServer((_request, res) => void res.writeHead(500).end('upstream exploded'));
    const p = summarizer(s.baseUrl, { maxRetries: 2 });
    await expect(p.summarize(group)).rejects.toThrow(/failed after 3 attempts; last: HTTP 500: upstream exploded/);
    expect(s.requests).toHaveLength(3);
    expect(p.time.sleeps).toEqual([10, 20]);
  });

  it('fails at once on a 4xx other than 429', async () => {
    const s = await startServer((_request, res) => void res.writeHead(401).end('{"error":"invalid api key"}'));
    const p = summarizer(s.baseUrl);
    await expect(p.summarize(group)).rejects.toThrow(/chat\/completions model test-chat, session group-session: HTTP 401: .* \(check the API key\)/);
    expect(s.requests).toHaveLength(1);
    expect(p.time.sleeps).toEqual([]);
  });

  it('retries a request that times out, and names a lasting timeout', async () => {
    const s = await startServer((request, res) => (request.n === 1 || request.n >= 3 ? 'hang' : ok(request, res)));
    const p = summarizer(s.baseUrl, { timeoutMs: 100 });
    expect(await p.summarize(group)).toEqual(good);
    expect(s.requests).toHaveLength(2);
    await expect(summarizer(s.baseUrl, { timeoutMs: 100, maxRetries: 1 }).summarize(group)).rejects.toThrow(/failed after 2 attempts; last: timed out after 100 ms/);
  });

  it('honours an abort during a request and during a backoff, without retrying', async () => {
    const controller = new AbortController();
    const s = await startServer((request) => {
      if (request.n === 1) controller.abort(new Error('caller went away'));
      return 'hang';
    });
    const p = summarizer(s.baseUrl);
    await expect(p.summarize(group, controller.signal)).rejects.toThrow('caller went away');
    expect(s.requests).toHaveLength(1);

    const during = new AbortController();
    const failing = await startServer((_request, res) => void res.writeHead(503).end('busy'));
    const waiting = createOpenAiChatSummarizer(
      { baseUrl: failing.baseUrl, model: 'm' },
      { sleep: () => (during.abort(), new Promise<void>(() => undefined)) },
    );
    await expect(waiting.summarize(group, during.signal)).rejects.toThrow(/abort/i);
    expect(failing.requests).toHaveLength(1);
    await expect(waiting.summarize(group, during.signal)).rejects.toThrow(/abort/i);
    expect(failing.requests).toHaveLength(1);
  });

  it('refuses a window with no text before asking the server', async () => {
    const s = await startServer(ok);
    await expect(summarizer(s.baseUrl).summarize(window('group', [['a', 'Alice', '   ']]))).rejects.toThrow(/nothing to summarize/);
    expect(s.requests).toHaveLength(0);
  });
});
