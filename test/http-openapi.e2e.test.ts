import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeJsonServers } from './support/json-server.js';
import { startChatStandIn } from './support/chat-standin.js';
import { startDoors, waitForJob, type Doors } from './support/doors.js';

type State = Record<string, string>;
/** One call of an operation: path parameters, query, body, and the status it must answer. */
interface Call {
  readonly params?: (s: State) => Record<string, string>;
  readonly query?: (s: State) => Record<string, string>;
  readonly body?: (s: State) => unknown;
  readonly status: number;
  readonly then?: (body: any, s: State, doors: Doors) => Promise<void> | void;
}

const text = 'Kim keeps bees on the roof of the library';
const importFile = JSON.stringify([{ content: 'Imported: the tram stops at Linden Square' }]);

// In the order they run; the test refuses an operation of the document that has no call here.
const calls: Record<string, Call> = {
  writeMemory: { body: () => ({ text, userId: 'u1', topics: ['bees'] }), status: 201, then: (b, s) => void (s.memory = b.memoryId) },
  listMemories: { query: () => ({ userId: 'u1', limit: '1' }), status: 200, then: (b) => expect(b.items[0].text).toBe(text) },
  getMemory: { params: (s) => ({ id: s.memory as string }), status: 200, then: (b) => expect(b.topics).toEqual(['bees']) },
  updateMemory: { params: (s) => ({ id: s.memory as string }), body: () => ({ importance: 0.9 }), status: 200 },
  archiveMemory: { params: (s) => ({ id: s.memory as string }), body: () => ({ reason: 'test' }), status: 200 },
  restoreMemory: { params: (s) => ({ id: s.memory as string }), body: () => ({}), status: 200 },
  search: { body: () => ({ query: 'bees roof', scope: { mode: 'global' }, explain: true }), status: 200, then: (b) => expect(b.memories[0].explain).toBeDefined() },
  history: { params: (s) => ({ id: s.memory as string }), status: 200, then: (b) => expect(b.entries.map((e: any) => e.actor)).toContain('http:local') },
  memoryDetails: { params: (s) => ({ id: s.memory as string }), status: 200, then: (b) => expect(b.graph.entries.length).toBeGreaterThan(0) },
  graphView: { query: () => ({ limit: '50' }), status: 200, then: (b) => expect(b.nodes.map((n: any) => n.key)).toContain('topic:bees') },
  memoriesAt: { query: () => ({ at: '5' }), status: 200, then: (b) => expect(b.position).toBe(5) },
  listEvents: { query: () => ({ limit: '5' }), status: 200, then: (b) => expect(b.events.length).toBe(5) },
  beforeLlmRequest: {
    body: () => ({ sessionId: 's1', userId: 'u1', message: { content: 'where are the bees?' } }), status: 200,
    then: (b, s) => { expect(b.status).toBe('ok'); s.message = b.messageId; },
  },
  afterLlmResponse: { body: (s) => ({ sessionId: 's1', userId: 'u1', message: { content: 'On the library roof.' }, inReplyTo: s.message }), status: 200 },
  listSessions: { status: 200, then: (b) => expect(b.sessions.map((x: any) => x.sessionId)).toEqual(['s1']) },
  replaySession: { params: () => ({ id: 's1' }), status: 200, then: (b) => expect(b.turns.length).toBeGreaterThan(0) },
  recallAt: { body: () => ({ at: '5', query: 'bees', scope: { mode: 'global' } }), status: 200, then: (b) => expect(b.position).toBe(5) },
  diff: { query: () => ({ from: '1', to: '6' }), status: 200 },
  previewImport: { body: () => ({ content: importFile }), status: 200, then: (b) => expect(b.new).toBe(1) },
  importMemories: {
    body: () => ({ content: importFile, source: 'trams.json' }), status: 202,
    then: async (b, s, d) => { const job = await waitForJob(d, b.jobId); expect(job.state).toBe('succeeded'); s.import = job.result.importId; },
  },
  rollbackImport: { params: (s) => ({ id: s.import as string }), status: 200, then: (b) => expect(b.forgotten).toHaveLength(1) },
  exportMemories: { query: () => ({ format: 'csv', userId: 'u1' }), status: 200, then: (b) => expect(String(b)).toContain('bees') },
  complianceExportPreview: { body: () => ({ user: 'u1' }), status: 200, then: (b) => expect(b.counts.memory).toBeGreaterThan(0) },
  complianceExport: {
    body: () => ({ user: 'u1' }), status: 202,
    then: async (b, s, d) => { const job = await waitForJob(d, b.jobId); expect(job.state).toBe('succeeded'); s.export = job.result.exportId; },
  },
  complianceManifest: { params: (s) => ({ id: s.export as string }), status: 200, then: (b, s) => void (s.file = b.files[0].name) },
  complianceFile: { params: (s) => ({ id: s.export as string, name: s.file as string }), status: 200, then: (b) => expect(String(b)).toContain('bees') },
  publicKey: { status: 200, then: (b, s) => { expect(b.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/); s.key = b.publicKey; } },
  complianceVerify: { params: (s) => ({ id: s.export as string }), body: (s) => ({ publicKey: s.key }), status: 200, then: (b) => expect(b.ok).toBe(true) },
  status: { status: 200, then: (b) => expect(b.memories.all).toBe(2) },
  verify: { body: () => ({}), status: 202, then: async (b, _s, d) => expect((await waitForJob(d, b.jobId)).result.ok).toBe(true) },
  rebuild: { body: () => ({ target: 'documents' }), status: 202, then: async (b, s, d) => { s.job = b.jobId; expect((await waitForJob(d, b.jobId)).state).toBe('succeeded'); } },
  listJobs: { status: 200, then: (b) => expect(b.jobs.length).toBeGreaterThan(2) },
  getJob: { params: (s) => ({ id: s.job as string }), status: 200, then: (b) => expect(b.progress.done).toBe(1) },
  jobEvents: { params: (s) => ({ id: s.job as string }), status: 200, then: (b) => expect(String(b)).toMatch(/^event: done\ndata: \{/) },
  summarize: { body: () => ({ sessionId: 's1' }), status: 200 },
  cleanup: { body: () => ({ mode: 'preview' }), status: 200 },
  chatCompletions: { body: () => ({ model: 'm', user: 'u1', messages: [{ role: 'user', content: 'hello' }] }), status: 200, then: (b) => expect(b.choices[0].message.content).toBe('I heard: hello') },
  resetSession: { params: () => ({ id: 's1' }), body: () => ({ reason: 'test' }), status: 200 },
  forgetMemory: { params: (s) => ({ id: s.memory as string }), body: () => ({ reason: 'test' }), status: 200 },
  backup: {
    body: (s) => ({ path: `${s.dir}-backup.db` }), status: 200,
    then: async (_b, s, d) => {
      // Like `lmem backup`: an existing file is kept unless force is given.
      const again = await d.call('POST', '/v1/backups', { body: { path: `${s.dir}-backup.db` } });
      expect(again).toMatchObject({ status: 400, body: { field: 'path', code: 'invalid' } });
      expect((await d.call('POST', '/v1/backups', { body: { path: `${s.dir}-backup.db`, force: true } })).status).toBe(200);
    },
  },
  lifecycleStatus: {
    status: 200,
    then: async (b, _s, d) => {
      expect(b.memories.forgotten).toBe((await d.call('GET', '/v1/memories?status=forgotten&limit=1')).body.total);
      expect(b.backups.latest[0].data.path).toMatch(/-backup\.db$/);
    },
  },
  previewErasure: {
    body: () => ({ kind: 'user', id: 'u1' }), status: 200,
    then: (b) => { expect(b.sealedEvents).toBeGreaterThan(0); expect(b.memories).toBeGreaterThanOrEqual(1); expect(b.messages).toBeGreaterThanOrEqual(2); expect(b.byType.MemoryWritten).toBe(b.memories); },
  },
  erase: {
    body: () => ({ kind: 'user', id: 'u1', reason: 'test' }), status: 202,
    then: async (b, _s, d) => {
      expect((await waitForJob(d, b.jobId)).state).toBe('succeeded');
      // Again: nothing is left to erase, refused before a job starts unless forced.
      expect(await d.call('POST', '/v1/erasures', { body: { kind: 'user', id: 'u1', reason: 'again' } })).toMatchObject({ status: 400, body: { field: 'user', code: 'invalid' } });
      const forced = await d.call('POST', '/v1/erasures', { body: { kind: 'user', id: 'u1', reason: 'again', force: true } });
      expect((await waitForJob(d, forced.body.jobId)).state).toBe('succeeded');
    },
  },
};

describe('the REST API and its OpenAPI document', () => {
  let doors: Doors;
  let doc: any;
  beforeAll(async () => {
    const upstream = await startChatStandIn();
    doors = await startDoors({ upstream: { baseUrl: upstream.baseUrl } });
    doc = (await doors.call('GET', '/openapi.json')).body;
  });
  afterAll(async () => {
    await doors.close();
    await closeJsonServers();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes request bodies from the engine schemas (not by hand)', () => {
    const write = doc.paths['/v1/memories'].post.requestBody.content['application/json'].schema;
    expect(write.properties.importance).toMatchObject({ type: 'number', minimum: 0, maximum: 1 });
    expect(write.additionalProperties).toBe(false);
  });

  it('answers every operation it lists', async () => {
    const ops = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), id: op.operationId })));
    expect(ops.map((o) => o.id).sort()).toEqual(Object.keys(calls).sort());
    const state: State = { dir: doors.dir };
    for (const [id, call] of Object.entries(calls)) {
      const op = ops.find((o) => o.id === id);
      if (!op) throw new Error(`no operation ${id}`);
      const params = call.params?.(state) ?? {};
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
      const query = new URLSearchParams(call.query?.(state) ?? {}).toString();
      const res = await doors.call(op.method, `${path}${query ? `?${query}` : ''}`, call.body ? { body: call.body(state) } : {});
      expect({ id, status: res.status, body: res.status === call.status ? null : res.body }).toEqual({ id, status: call.status, body: null });
      await call.then?.(res.body, state, doors);
    }
  });

  it('verifies a compliance export without a body too, and refuses a key that is not one', async () => {
    const job = (await doors.call('POST', '/v1/compliance/exports', { body: { all: true } })).body;
    const exportId = (await waitForJob(doors, job.jobId)).result.exportId;
    const bare = await doors.call('POST', `/v1/compliance/exports/${exportId}/verify`);
    expect(bare).toMatchObject({ status: 200, body: { ok: true } });
    const bad = await doors.call('POST', `/v1/compliance/exports/${exportId}/verify`, { body: { publicKey: 'not a key' } });
    expect(bad).toMatchObject({ status: 400, body: { field: 'publicKey', code: 'invalid' } });
  });

  it('answers errors as {error, field, code} with 400, 404, 409 and 413', async () => {
    const before = (await doors.call('GET', '/v1/status')).body.memories.all;
    const memory = (await doors.call('POST', '/v1/memories', { body: { text: 'a second one' } })).body.memoryId;
    const bad = await doors.call('POST', '/v1/memories', { body: { text: 'x', importance: 3 } });
    expect(bad).toMatchObject({ status: 400, body: { field: 'importance', code: 'invalid' } });
    const unknown = await doors.call('POST', '/v1/search', { body: { query: 'x', colour: 'blue' } });
    expect(unknown).toMatchObject({ status: 400, body: { field: 'colour' } });
    expect(await doors.call('GET', '/v1/memories/nope')).toMatchObject({ status: 404, body: { field: 'id', code: 'memory_not_found' } });
    await doors.call('POST', `/v1/memories/${memory}/forget`, { body: {} });
    expect(await doors.call('PATCH', `/v1/memories/${memory}`, { body: { importance: 0.1 } })).toMatchObject({ status: 409, body: { code: 'memory_forgotten', field: null } });
    const big = await doors.call('POST', '/v1/memories', { body: { text: 'x'.repeat(2 * 1024 * 1024) } });
    expect(big).toMatchObject({ status: 413, body: { code: 'too_large' } });
    // Only the one good write went in.
    expect((await doors.call('GET', '/v1/status')).body.memories.all).toBe(before + 1);
  });
});
