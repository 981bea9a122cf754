import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../../src/engine/engine.js';
import { startHttpServer } from '../../src/interfaces/http/server.js';
import { mountMcp } from '../../src/interfaces/mcp/http.js';
import { mountProxy } from '../../src/interfaces/proxy/chat.js';
import { removeDataDir } from './engine.js';

export const tokens = {
  admin: 'admin-token-0123456789',
  alice: 'alice-token-0123456789',
  bob: 'bob-token-000123456789',
} as const;

/** Tokens for an operator (every memory), and Alice and Bob, each limited to their own user. */
export const tokenConfig = [
  { token: tokens.admin, actor: 'ops', userId: null },
  { token: tokens.alice, actor: 'alice', userId: 'u-alice' },
  { token: tokens.bob, actor: 'bob', userId: 'u-bob' },
];

export interface Doors {
  readonly baseUrl: string;
  readonly engine: MemoryEngine;
  readonly config: Config;
  readonly dir: string;
  /** fetch against the server, with a bearer token when given. */
  call(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; text: string; headers: Headers }>;
  close(): Promise<void>;
}

/** A real engine on a temporary folder behind `lmem serve`'s server (REST, MCP, proxy) on 127.0.0.1. */
export async function startDoors(server: Record<string, unknown> = {}): Promise<Doors> {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-doors-'));
  const config = loadConfig({ overrides: { dataDir: dir, server: { port: 0, ...server } } });
  const engine = await createMemoryEngine(config, { maintenance: false });
  const http = await startHttpServer(engine, config, { mounts: [mountMcp, mountProxy] });
  const baseUrl = http.address;
  return {
    baseUrl, engine, config, dir,
    async call(method, path, options = {}) {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...options.headers,
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: an export file, an event stream
      }
      return { status: res.status, body, text, headers: res.headers };
    },
    async close() {
      await http.close();
      await engine.close();
      removeDataDir(dir);
      rmSync(`${dir}-backup.db`, { force: true });
    },
  };
}

/** Polls a job until it ends. */
export async function waitForJob(doors: Doors, jobId: string, token?: string): Promise<any> {
  for (let i = 0; i < 600; i += 1) {
    const { body } = await doors.call('GET', `/v1/jobs/${jobId}`, token ? { token } : {});
    if (body.state !== 'running') return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${jobId} did not end`);
}
