import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streams } from '../src/events/streams.js';
import { allText, startChatStandIn } from './support/chat-standin.js';
import { startDoors, tokenConfig, tokens, type Doors } from './support/doors.js';
import { closeJsonServers } from './support/json-server.js';

describe('the OpenAI-compatible memory proxy, through the official openai client', () => {
  let doors: Doors;
  let upstream: Awaited<ReturnType<typeof startChatStandIn>>;
  let client: OpenAI;
  beforeAll(async () => {
    upstream = await startChatStandIn();
    doors = await startDoors({ tokens: tokenConfig, upstream: { baseUrl: upstream.baseUrl, timeoutMs: 1500 } });
    client = new OpenAI({ apiKey: tokens.alice, baseURL: `${doors.baseUrl}/v1`, maxRetries: 0 });
    await doors.engine.writeMemory({ text: 'Alice is allergic to peanuts', userId: 'u-alice' });
  });
  afterAll(async () => {
    await doors.close();
    await closeJsonServers();
  });

  const stored = async (sessionId: string) =>
    (await doors.engine.replaySession(sessionId)).turns.flatMap((t) => t.messages.map((m) => `${m.role}: ${m.content}`));

  it('injects the recall into the forwarded request only, and records both messages (non-streaming)', async () => {
    upstream.mode = { kind: 'answer' };
    const answer = await client.chat.completions.create(
      { model: 'stand-in', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'what am I allergic to?' }] },
      { headers: { 'x-session-id': 'proxy-1' } },
    );
    expect(answer.choices[0]?.message.content).toBe('I heard: what am I allergic to?');
    const forwarded = upstream.requests.at(-1)?.body;
    expect(forwarded && allText(forwarded)).toContain('allergic to peanuts');
    expect(forwarded?.messages.at(-1)?.content).toEqual(expect.arrayContaining([{ type: 'text', text: 'what am I allergic to?' }]));
    expect(await stored('proxy-1')).toEqual(['user: what am I allergic to?', 'assistant: I heard: what am I allergic to?']);
    const history = await doors.engine.log.readStream(streams.conversation('proxy-1'));
    expect(history.map((e) => e.type)).toContain('MessageRecorded');
    expect(JSON.stringify(history.map((e) => e.data))).not.toContain('peanuts');
  });

  it('streams the answer through and records it when the stream ends', async () => {
    const stream = await client.chat.completions.create(
      { model: 'stand-in', stream: true, user: 'u-alice', messages: [{ role: 'user', content: 'any food to avoid?' }] },
      { headers: { 'x-session-id': 'proxy-2' } },
    );
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('I heard: any food to avoid?');
    expect(upstream.requests.at(-1)?.body.stream).toBe(true);
    expect(allText(upstream.requests.at(-1)?.body as never)).toContain('peanuts');
    expect(await stored('proxy-2')).toEqual(['user: any food to avoid?', 'assistant: I heard: any food to avoid?']);
  });

  it('passes the upstream errors through, streaming or not', async () => {
    upstream.mode = { kind: 'fail', status: 429, message: 'slow down' };
    for (const stream of [false, true]) {
      const attempt = client.chat.completions.create({ model: 'm', stream, messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-session-id': 'proxy-3' } });
      await expect(attempt).rejects.toMatchObject({ status: 429, message: expect.stringContaining('slow down') });
    }
    upstream.mode = { kind: 'answer' };
  });

  it('answers 504 when the upstream does not answer in time, streaming or not', async () => {
    upstream.mode = { kind: 'hang' };
    for (const stream of [false, true]) {
      const attempt = client.chat.completions.create({ model: 'm', stream, messages: [{ role: 'user', content: 'hello?' }] }, { headers: { 'x-session-id': 'proxy-4' } });
      await expect(attempt).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' });
    }
    upstream.mode = { kind: 'cut-stream' };
    const stream = await client.chat.completions.create({ model: 'm', stream: true, messages: [{ role: 'user', content: 'go on' }] }, { headers: { 'x-session-id': 'proxy-5' } });
    const read = async () => {
      for await (const _ of stream) void _;
    };
    await expect(read()).rejects.toThrow(/did not answer within/);
    upstream.mode = { kind: 'answer' };
  });

  it("keeps a scoped token to its own user, and refuses a request without a session", async () => {
    const bob = new OpenAI({ apiKey: tokens.bob, baseURL: `${doors.baseUrl}/v1`, maxRetries: 0 });
    await bob.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'what am I allergic to?' }] }, { headers: { 'x-session-id': 'bob-1' } });
    expect(allText(upstream.requests.at(-1)?.body as never)).not.toContain('peanuts');
    await expect(bob.chat.completions.create({ model: 'm', user: 'u-alice', messages: [{ role: 'user', content: 'x' }] }, { headers: { 'x-session-id': 'bob-2' } }))
      .rejects.toMatchObject({ status: 403 });
    const bad = new OpenAI({ apiKey: 'wrong-token-wrong-token', baseURL: `${doors.baseUrl}/v1`, maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })).rejects.toMatchObject({ status: 401 });
  });
});
