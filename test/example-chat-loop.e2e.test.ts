import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine } from '../src/engine/engine.js';
import { allText, startChatStandIn } from './support/chat-standin.js';
import { closeJsonServers } from './support/json-server.js';

const run = promisify(execFile);

describe('examples/chat-loop.ts, run as a user would', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-example-'));
  afterAll(async () => {
    await closeJsonServers();
    rmSync(dir, { recursive: true, force: true });
  });

  it('recalls into each LLM call, and stores the conversation without the injection', async () => {
    const llm = await startChatStandIn();
    const { stdout } = await run(process.execPath, ['dist/examples/chat-loop.js', 'hello there', 'which city do I live in?'], {
      env: {
        PATH: process.env.PATH ?? '', LIVINGMEMORY_DATA_DIR: dir, LIVINGMEMORY_MEMORY_SCOPE_MODE: 'user',
        CHAT_BASE_URL: llm.baseUrl, CHAT_USER: 'jo', CHAT_SESSION: 'ex-1', CHAT_REMEMBER: 'Jo lives in Lisbon, near the river',
      },
      timeout: 60_000,
    });
    const turns = stdout.trim().split('\n').map((line) => JSON.parse(line) as { user: string; recalled: string[]; reply: string });
    expect(turns.map((t) => t.reply)).toEqual(['I heard: hello there', 'I heard: which city do I live in?']);
    expect(turns[1]?.recalled).toContain('Jo lives in Lisbon, near the river');
    const second = llm.requests[1]?.body;
    expect(second && allText(second)).toContain('Lisbon');
    expect(second?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);

    const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: dir } }), { maintenance: false });
    try {
      const replay = await engine.replaySession('ex-1');
      const messages = replay.turns.flatMap((t) => t.messages.map((m) => m.content));
      expect(messages).toEqual(['hello there', 'I heard: hello there', 'which city do I live in?', 'I heard: which city do I live in?']);
    } finally {
      await engine.close();
    }
  });
});
