import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { checkBindAddress } from '../src/interfaces/shared/principal.js';
import { startChatStandIn } from './support/chat-standin.js';
import { startDoors, tokenConfig, tokens, waitForJob, type Doors } from './support/doors.js';
import { closeJsonServers } from './support/json-server.js';

const secret = 'Alice hides the spare key under the blue flowerpot';

type Ids = { memory: string; export: string; job: string };
/** What Bob's token (scoped to u-bob) tries on each route, aimed at Alice's data. */
interface Attempt {
  readonly path: (ids: Ids) => string;
  readonly body?: (ids: Ids) => unknown;
  /** denied: 403 or 404; own: answered, but with nothing of Alice's. */
  readonly expect: 'denied' | 'own';
}
const at = (path: string) => () => path;
const attempts: Record<string, Attempt> = {
  listMemories: { path: at('/v1/memories?userId=u-alice'), expect: 'denied' },
  writeMemory: { path: at('/v1/memories'), body: () => ({ text: 'planted', userId: 'u-alice' }), expect: 'denied' },
  getMemory: { path: (i) => `/v1/memories/${i.memory}`, expect: 'denied' },
  updateMemory: { path: (i) => `/v1/memories/${i.memory}`, body: () => ({ text: 'changed by bob' }), expect: 'denied' },
  archiveMemory: { path: (i) => `/v1/memories/${i.memory}/archive`, body: () => ({}), expect: 'denied' },
  restoreMemory: { path: (i) => `/v1/memories/${i.memory}/restore`, body: () => ({}), expect: 'denied' },
  forgetMemory: { path: (i) => `/v1/memories/${i.memory}/forget`, body: () => ({}), expect: 'denied' },
  search: { path: at('/v1/search'), body: () => ({ query: 'spare key flowerpot', scope: { mode: 'global' } }), expect: 'own' },
  history: { path: (i) => `/v1/history/${i.memory}`, expect: 'denied' },
  listEvents: { path: at('/v1/events'), expect: 'denied' },
  listSessions: { path: at('/v1/sessions'), expect: 'denied' },
  replaySession: { path: at('/v1/sessions/s-alice/replay'), expect: 'denied' },
  recallAt: { path: at('/v1/recall-at'), body: () => ({ at: '100', query: 'spare key', scope: { mode: 'user', userId: 'u-alice' } }), expect: 'denied' },
  diff: { path: at('/v1/diff?from=1&to=5'), expect: 'denied' },
  previewImport: { path: at('/v1/imports/preview'), body: () => ({ content: '[{"content":"x"}]' }), expect: 'denied' },
  importMemories: { path: at('/v1/imports'), body: () => ({ content: '[{"content":"x"}]' }), expect: 'denied' },
  rollbackImport: { path: at('/v1/imports/any/rollback'), body: () => ({}), expect: 'denied' },
  exportMemories: { path: at('/v1/export?userId=u-alice'), expect: 'denied' },
  complianceExport: { path: at('/v1/compliance/exports'), body: () => ({ user: 'u-alice' }), expect: 'denied' },
  complianceManifest: { path: (i) => `/v1/compliance/exports/${i.export}`, expect: 'denied' },
  complianceFile: { path: (i) => `/v1/compliance/exports/${i.export}/files/records.jsonl`, expect: 'denied' },
  complianceVerify: { path: (i) => `/v1/compliance/exports/${i.export}/verify`, body: () => ({}), expect: 'denied' },
  publicKey: { path: at('/v1/keys/public'), expect: 'own' },
  status: { path: at('/v1/status'), expect: 'own' },
  verify: { path: at('/v1/verify'), body: () => ({}), expect: 'denied' },
  rebuild: { path: at('/v1/rebuilds'), body: () => ({ target: 'all' }), expect: 'denied' },
  previewErasure: { path: at('/v1/erasures/preview'), body: () => ({ kind: 'user', id: 'u-alice' }), expect: 'denied' },
  erase: { path: at('/v1/erasures'), body: () => ({ kind: 'user', id: 'u-alice', reason: 'bob wants it gone' }), expect: 'denied' },
  backup: { path: at('/v1/backups'), body: () => ({ path: '/tmp/bob-copy.db' }), expect: 'denied' },
  beforeLlmRequest: { path: at('/v1/hooks/before-llm-request'), body: () => ({ sessionId: 's-bob', userId: 'u-alice', message: { content: 'key?' } }), expect: 'denied' },
  afterLlmResponse: { path: at('/v1/hooks/after-llm-response'), body: () => ({ sessionId: 's-bob', userId: 'u-alice', message: { content: 'ok' } }), expect: 'denied' },
  resetSession: { path: at('/v1/sessions/s-alice/reset'), body: () => ({}), expect: 'denied' },
  summarize: { path: at('/v1/summaries'), body: () => ({ sessionId: 's-alice' }), expect: 'denied' },
  cleanup: { path: at('/v1/cleanup'), body: () => ({ mode: 'exec' }), expect: 'denied' },
  listJobs: { path: at('/v1/jobs'), expect: 'own' },
  getJob: { path: (i) => `/v1/jobs/${i.job}`, expect: 'denied' },
  jobEvents: { path: (i) => `/v1/jobs/${i.job}/events`, expect: 'denied' },
  graphView: { path: at('/v1/graph'), expect: 'denied' },
  memoryDetails: { path: (i) => `/v1/memories/${i.memory}/details`, expect: 'denied' },
  memoriesAt: { path: at('/v1/at/memories?at=1'), expect: 'denied' },
  complianceExportPreview: { path: at('/v1/compliance/preview'), body: () => ({ user: 'u-alice' }), expect: 'denied' },
  lifecycleStatus: { path: at('/v1/status/lifecycle'), expect: 'denied' },
  chatCompletions: { path: at('/v1/chat/completions'), body: () => ({ model: 'm', user: 'u-alice', messages: [{ role: 'user', content: 'where is the spare key?' }] }), expect: 'denied' },
};

describe('auth: bearer tokens bound to an actor and a user', () => {
  let doors: Doors;
  let doc: any;
  const ids: Ids = { memory: '', export: '', job: '' };
  beforeAll(async () => {
    const upstream = await startChatStandIn();
    doors = await startDoors({ tokens: tokenConfig, upstream: { baseUrl: upstream.baseUrl } });
    doc = (await doors.call('GET', '/openapi.json')).body;
    const alice = { token: tokens.alice };
    ids.memory = (await doors.call('POST', '/v1/memories', { ...alice, body: { text: secret } })).body.memoryId;
    await doors.call('POST', '/v1/hooks/before-llm-request', { ...alice, body: { sessionId: 's-alice', message: { content: 'remember the key' } } });
    const job = (await doors.call('POST', '/v1/compliance/exports', { ...alice, body: { user: 'u-alice' } })).body;
    ids.job = job.jobId;
    ids.export = (await waitForJob(doors, job.jobId, tokens.alice)).result.exportId;
  });
  afterAll(async () => {
    await doors.close();
    await closeJsonServers();
  });

  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), id: op.operationId })));

  it('refuses every operation without a token, or with an unknown one (401)', async () => {
    for (const op of operations()) {
      const attempt = attempts[op.id];
      if (!attempt) throw new Error(`no attempt for ${op.id}`);
      for (const token of [undefined, 'not-a-known-token-at-all']) {
        const res = await doors.call(op.method, attempt.path(ids), { ...(token ? { token } : {}), ...(attempt.body ? { body: attempt.body(ids) } : {}) });
        expect({ id: op.id, status: res.status, code: res.body.code ?? res.body.error?.code }).toEqual({ id: op.id, status: 401, code: 'unauthorized' });
      }
    }
  });

  it("gives a token scoped to Bob nothing of Alice's, on every route", async () => {
    expect(operations().map((o) => o.id).sort()).toEqual(Object.keys(attempts).sort());
    for (const op of operations()) {
      const attempt = attempts[op.id] as Attempt;
      const res = await doors.call(op.method, attempt.path(ids), { token: tokens.bob, ...(attempt.body ? { body: attempt.body(ids) } : {}) });
      const outcome = [403, 404].includes(res.status) ? 'denied' : res.status < 300 ? 'own' : `status ${res.status}`;
      expect({ id: op.id, outcome }).toEqual({ id: op.id, outcome: attempt.expect });
      expect(res.text).not.toContain('flowerpot');
    }
    const after = await doors.call('GET', `/v1/memories/${ids.memory}`, { token: tokens.alice });
    expect(after.body).toMatchObject({ text: secret, status: 'active', userId: 'u-alice' });
    expect((await doors.call('GET', '/v1/memories', { token: tokens.admin })).body.items.map((m: any) => m.text)).not.toContain('planted');
  });

  it('lets the scoped token use its own memories, and records who did it through which door', async () => {
    const bob = { token: tokens.bob };
    const own = (await doors.call('POST', '/v1/memories', { ...bob, body: { text: 'Bob waters the ferns on Sundays' } })).body.memoryId;
    expect((await doors.call('GET', `/v1/memories/${own}`, bob)).body.userId).toBe('u-bob');
    const found = (await doors.call('POST', '/v1/search', { ...bob, body: { query: 'ferns' } })).body;
    expect(found.memories.map((m: any) => m.memoryId)).toEqual([own]);
    await doors.call('PATCH', `/v1/memories/${own}`, { token: tokens.admin, body: { importance: 0.8 } });
    const actors = (await doors.call('GET', `/v1/history/${own}`, bob)).body.entries.map((e: any) => e.actor);
    expect(actors).toEqual(expect.arrayContaining(['http:bob', 'http:ops']));
  });
});

describe('without a token the server listens on loopback only', () => {
  const config = (host: string) => loadConfig({ overrides: { server: { host } } });
  it('refuses any other bind address, and accepts loopback ones', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.org']) expect(() => checkBindAddress(config(host))).toThrow(/loopback/);
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost']) expect(() => checkBindAddress(config(host))).not.toThrow();
    const withTokens = loadConfig({ overrides: { server: { host: '0.0.0.0', tokens: tokenConfig } } });
    expect(() => checkBindAddress(withTokens)).not.toThrow();
  });

  it('lmem serve --host 0.0.0.0 and bad ports exit 2 before any data dir is made; lmem mcp without its token too', () => {
    const root = mkdtempSync(join(tmpdir(), 'lmem-bind-'));
    onTestFinished(() => rmSync(root, { recursive: true, force: true }));
    const dataDir = join(root, 'never-created');
    const run = (args: readonly string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, ['dist/src/interfaces/cli/main.cjs', ...args, '--data-dir', dataDir, '--json'], {
        env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 60_000,
      });
    const refused = run(['serve', '--host', '0.0.0.0']);
    expect(refused.status).toBe(2);
    expect(refused.stdout).toContain('server.host');
    for (const port of ['-1', '0x50', '65536']) {
      const bad = run(['serve', '--port', port]);
      expect([port, bad.status]).toEqual([port, 2]);
      expect(bad.stdout).toContain('port');
    }
    const mcp = run(['mcp'], { LIVINGMEMORY_API_TOKENS: `${tokens.alice}=alice:u-alice` });
    expect(mcp.status).toBe(2);
    expect(mcp.stdout).toContain('server.mcp.token');
    expect(existsSync(dataDir)).toBe(false);
    const parsed = loadConfig({ env: { LIVINGMEMORY_API_TOKENS: `${tokens.alice}=alice:u-alice,${tokens.admin}=ops` } });
    expect(parsed.server.tokens).toEqual([
      { token: tokens.alice, actor: 'alice', userId: 'u-alice' },
      { token: tokens.admin, actor: 'ops', userId: null },
    ]);
    expect(() => loadConfig({ env: { LIVINGMEMORY_API_TOKENS: 'short=alice' } })).toThrow(/server.tokens.0.token/);
  });

  it('answers the local caller without a token', async () => {
    const doors = await startDoors();
    try {
      expect(doors.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const written = await doors.call('POST', '/v1/memories', { body: { text: 'local note' } });
      expect(written.status).toBe(201);
    } finally {
      await doors.close();
    }
  });
});
