import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBudget } from '../src/interfaces/mcp/budget.js';
import { startDoors, tokenConfig, tokens, type Doors } from './support/doors.js';

const toolNames = ['forget_memory', 'memorize', 'memory_history', 'recall', 'update_memory'];

async function httpClient(doors: Doors, token?: string): Promise<Client> {
  const client = new Client({ name: 'test', version: '1' });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(`${doors.baseUrl}/mcp`), { requestInit: { headers } }));
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError?: boolean };
  const text = result.content[0]?.text ?? '';
  return { error: result.isError === true, text, json: result.isError ? null : (JSON.parse(text) as any) };
};

describe('MCP over streamable HTTP (/mcp under lmem serve)', () => {
  let doors: Doors;
  let alice: Client;
  let bob: Client;
  beforeAll(async () => {
    doors = await startDoors({ tokens: tokenConfig, mcp: { budget: { maxCalls: 100, windowMs: 20_000, maxChars: 12_000 } } });
    alice = await httpClient(doors, tokens.alice);
    bob = await httpClient(doors, tokens.bob);
  });
  afterAll(async () => {
    await alice.close();
    await bob.close();
    await doors.close();
  });

  it('lists the five tools with their zod input schemas', async () => {
    const { tools } = await alice.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(toolNames);
    const memorize = tools.find((t) => t.name === 'memorize');
    expect(memorize?.inputSchema.properties?.importance).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
  });

  it('memorizes, recalls, updates, shows history and resources, forgets, as the token\'s actor', async () => {
    const written = await call(alice, 'memorize', { text: 'Alice parks her bike behind the bakery', topics: ['bike'] });
    const id = written.json.memoryId as string;
    expect(doors.engine.documents.get(id)?.userId).toBe('u-alice');
    const recalled = await call(alice, 'recall', { query: 'where is the bike parked', scope: { mode: 'global' } });
    expect(recalled.json.memories.map((m: any) => m.memoryId)).toEqual([id]);
    expect((await call(alice, 'update_memory', { memoryId: id, changes: { importance: 0.9 } })).json.position).toBeGreaterThan(0);
    const history = await call(alice, 'memory_history', { memoryId: id });
    expect(history.json.entries.map((e: any) => e.actor)).toEqual(expect.arrayContaining(['mcp:alice']));
    const resource = await alice.readResource({ uri: `memory://${id}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toMatchObject({ memoryId: id, importance: 0.9 });
    const trail = await alice.readResource({ uri: `memory://${id}/history` });
    expect(JSON.parse((trail.contents[0] as { text: string }).text).entries.length).toBeGreaterThanOrEqual(2);
    expect((await call(alice, 'forget_memory', { memoryId: id, reason: 'sold the bike' })).error).toBe(false);
    expect(doors.engine.documents.get(id)?.status).toBe('forgotten');
  });

  it('refuses bad input naming the field, and changes nothing', async () => {
    const head = await doors.engine.log.headPosition();
    const bad = await call(alice, 'memorize', { text: 'x', importance: 7 });
    expect(bad.error).toBe(true);
    expect(bad.text).toContain('importance');
    const unscoped = await call(alice, 'recall', { query: 'bike', scope: { mode: 'session' } });
    expect(unscoped.error).toBe(true);
    expect(unscoped.text).toContain('sessionId');
    expect(await doors.engine.log.headPosition()).toBe(head);
  });

  it("gives Bob's token nothing of Alice's, per tool and resource", async () => {
    const id = (await call(alice, 'memorize', { text: 'Alice keeps the attic key in the teapot' })).json.memoryId as string;
    const recalled = await call(bob, 'recall', { query: 'attic key teapot', scope: { mode: 'global' } });
    expect(recalled.text).not.toContain('teapot');
    for (const [name, args] of [
      ['memorize', { text: 'planted by bob', userId: 'u-alice' }],
      ['update_memory', { memoryId: id, changes: { text: 'bob was here' } }],
      ['forget_memory', { memoryId: id }],
      ['memory_history', { memoryId: id }],
    ] as const) {
      const result = await call(bob, name, args);
      expect({ name, error: result.error }).toEqual({ name, error: true });
      expect(result.text).not.toContain('teapot');
    }
    // Invalid params (as the SDK answers a URI no template matches), not an internal error.
    await expect(bob.readResource({ uri: `memory://${id}` })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(`no memory ${id}`) });
    await expect(bob.readResource({ uri: `memory://${id}/history` })).rejects.toMatchObject({ code: -32602 });
    expect(doors.engine.documents.get(id)).toMatchObject({ text: 'Alice keeps the attic key in the teapot', status: 'active' });
  });

  it('refuses a client without a token', async () => {
    await expect(httpClient(doors)).rejects.toThrow(/401|unauthorized|token/i);
  });
});

describe('MCP on stdio (lmem mcp)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lmem-mcp-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the tools to the SDK client, within the default budget of 4 calls', async () => {
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StdioClientTransport({
      command: process.execPath,
      args: ['dist/src/interfaces/cli/main.cjs', 'mcp', '--data-dir', dir],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'pipe',
    }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(toolNames);
      const id = (await call(client, 'memorize', { text: 'The standup moved to 9:30' })).json.memoryId as string;
      expect((await call(client, 'recall', { query: 'when is the standup' })).json.memories[0].memoryId).toBe(id);
      expect((await call(client, 'memory_history', { memoryId: id })).json.entries[0].actor).toBe('mcp:local');
      expect((await call(client, 'update_memory', { memoryId: id, changes: { importance: 0.7 } })).error).toBe(false);
      const fifth = await call(client, 'forget_memory', { memoryId: id });
      expect(fifth).toMatchObject({ error: true, text: expect.stringContaining('budget') });
    } finally {
      await client.close();
    }
  });

  it('refuses to start without LIVINGMEMORY_MCP_TOKEN when tokens are configured', async () => {
    const client = new Client({ name: 'test', version: '1' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/src/interfaces/cli/main.cjs', 'mcp', '--data-dir', dir],
      env: { PATH: process.env.PATH ?? '', LIVINGMEMORY_API_TOKENS: `${tokens.alice}=alice:u-alice` },
      stderr: 'pipe',
    });
    await expect(client.connect(transport)).rejects.toThrow();
  });
});

describe('the agent-tool budget', () => {
  it('allows maxCalls calls and maxChars characters per window, then opens a new window', () => {
    let t = 0;
    const budget = createBudget({ maxCalls: 2, windowMs: 1000, maxChars: 100 }, () => t);
    expect(budget.take()).toBe(1000);
    t = 400;
    expect(budget.take()).toBe(600);
    expect(() => budget.take()).toThrow(/at most 2 calls/);
    expect(budget.cut('x'.repeat(60))).toHaveLength(60);
    const cut = budget.cut('y'.repeat(60));
    expect(cut.length).toBeLessThanOrEqual(40);
    expect(cut).toContain('[cut');
    t = 1000;
    expect(budget.take()).toBe(1000);
    expect(budget.cut('z'.repeat(100))).toHaveLength(100);
  });
});
