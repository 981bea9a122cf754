import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardMount } from '../src/interfaces/http/dashboard.js';
import type { App, DoorContext } from '../src/interfaces/http/context.js';
import { startDoors, tokenConfig, tokens, waitForJob, type Doors } from './support/doors.js';

// The routes the dashboard reads beside the core API, called as the dashboard calls them.
describe('dashboard routes of lmem serve', () => {
  let doors: Doors;
  beforeAll(async () => {
    doors = await startDoors({ tokens: tokenConfig });
    const write = (body: Record<string, unknown>) => doors.call('POST', '/v1/memories', { token: tokens.admin, body });
    // Two groups that share nothing, one pair of reverse ties, and a memory of another session.
    await write({ text: 'Ann and Ben plan the garden', userId: 'u-alice', sessionId: 's1', participants: ['Ann', 'Ben'], topics: ['garden', 'roses'], importance: 0.9 });
    await write({ text: 'Ann waters the roses', userId: 'u-alice', sessionId: 's1', participants: ['Ann'], topics: ['roses', 'garden'], importance: 0.2 });
    await write({ text: 'Cy fixes the bike chain', userId: 'u-bob', sessionId: 's2', participants: ['Cy'], topics: ['bike', 'repairs'] });
  });
  afterAll(async () => doors.close());

  it('GET /v1/graph groups the nodes in a worker thread and writes nothing to the store', async () => {
    const head = await doors.engine.log.headPosition();
    const digest = doors.engine.runner.digest('graph');
    const { status, body } = await doors.call('GET', '/v1/graph?limit=100', { token: tokens.admin });
    expect(status).toBe(200);
    const community = (key: string) => body.nodes.find((n: { key: string }) => n.key === key)?.community;
    expect(community('topic:garden')).toBe(community('person:ann'));
    expect(community('topic:bike')).not.toBe(community('topic:garden'));
    expect(body.communities.reduce((n: number, c: { size: number }) => n + c.size, 0)).toBe(body.nodes.length);
    // garden -> roses in one memory, roses -> garden in the other: one drawn edge of their summed weight.
    const pair = body.edges.filter((e: { source: string; target: string }) => [e.source, e.target].sort().join() === 'topic:garden,topic:roses');
    expect(pair).toHaveLength(1);
    expect(pair[0].relations).toEqual(['co_occurrence']);
    expect(await doors.engine.log.headPosition()).toBe(head);
    expect(doors.engine.runner.digest('graph')).toBe(digest);
  });

  it('GET /v1/graph filters by session and keeps the most connected nodes', async () => {
    const s2 = (await doors.call('GET', '/v1/graph?sessionId=s2', { token: tokens.admin })).body;
    expect(s2.nodes.map((n: { key: string }) => n.key).sort()).toEqual(expect.arrayContaining(['person:cy', 'topic:bike', 'topic:repairs']));
    expect(s2.nodes.some((n: { key: string }) => n.key === 'topic:garden')).toBe(false);
    const top = (await doors.call('GET', '/v1/graph?limit=2', { token: tokens.admin })).body;
    expect(top.nodes).toHaveLength(2);
    expect(top.totalNodes).toBeGreaterThan(2);
    expect(await doors.call('GET', '/v1/graph?limit=0', { token: tokens.admin })).toMatchObject({ status: 400, body: { field: 'limit' } });
  });

  it('the compliance preview counts what the export then holds', async () => {
    const preview = await doors.call('POST', '/v1/compliance/preview', { token: tokens.admin, body: { user: 'u-alice' } });
    expect(preview.status).toBe(200);
    const job = await doors.call('POST', '/v1/compliance/exports', { token: tokens.admin, body: { user: 'u-alice' } });
    const done = await waitForJob(doors, job.body.jobId, tokens.admin);
    expect(done.result.manifest.counts).toEqual(preview.body.counts);
    expect(preview.body.counts.memory).toBe(2);
    expect(await doors.call('POST', '/v1/compliance/preview', { token: tokens.admin, body: {} })).toMatchObject({ status: 400, body: { field: 'subject' } });
  });

  it('a memory page reads its atoms, graph entries and sources; the list filters by importance and time', async () => {
    const list = await doors.call('GET', '/v1/memories?minImportance=0.5&userId=u-alice', { token: tokens.admin });
    expect(list.body.items.map((m: { text: string }) => m.text)).toEqual(['Ann and Ben plan the garden']);
    const id = list.body.items[0].memoryId as string;
    const details = await doors.call('GET', `/v1/memories/${id}/details`, { token: tokens.admin });
    expect(details.body.graph.entries[0].nodes.map((n: { key: string }) => n.key)).toContain('topic:garden');
    expect(details.body.graph.edges.length).toBeGreaterThan(0);
    const today = new Date().toISOString().slice(0, 10);
    expect((await doors.call('GET', `/v1/memories?createdFrom=${today}&createdTo=${today}`, { token: tokens.admin })).body.total).toBe(3);
    expect((await doors.call('GET', `/v1/memories?createdTo=2000-01-01`, { token: tokens.admin })).body.total).toBe(0);
    expect(await doors.call('GET', '/v1/memories?createdFrom=yesterday', { token: tokens.admin })).toMatchObject({ status: 400, body: { field: 'createdFrom' } });
    const written = (await doors.call('GET', `/v1/history/${id}`, { token: tokens.admin })).body.entries[0].position as number;
    const past = await doors.call('GET', `/v1/at/memories?at=${written}`, { token: tokens.admin });
    expect(past.body).toMatchObject({ position: written, total: 1, items: [{ memoryId: id }] });
  });

  it('GET /v1/status/lifecycle counts memories and atoms per state, with the last decay tick and the latest backups', async () => {
    const get = async () => (await doors.call('GET', '/v1/status/lifecycle', { token: tokens.admin })).body;
    const before = await get();
    expect(before.memories).toEqual({ active: 3, archived: 0, forgotten: 0, erased: 0 });
    expect(Object.values(before.atoms as Record<string, number>).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    expect(before.decay).toEqual({ ticks: 0, last: null });
    const [first, second] = (await doors.call('GET', '/v1/memories?userId=u-alice', { token: tokens.admin })).body.items as { memoryId: string }[];
    await doors.call('POST', `/v1/memories/${first!.memoryId}/archive`, { token: tokens.admin, body: { reason: 'old' } });
    await doors.call('POST', `/v1/memories/${second!.memoryId}/forget`, { token: tokens.admin, body: { reason: 'asked' } });
    // A decay tick as `lmem tick` runs it a day later: the one missed date (the first tick hour after the store's first event) ticks, and the one active memory left decays.
    const manual = await doors.engine.lifecycle.tick(new Date(Date.now() + 86_400_000));
    expect(manual.ticks).toHaveLength(1);
    const tick = manual.ticks[0]!;
    for (const n of [1, 2]) await doors.call('POST', '/v1/backups', { token: tokens.admin, body: { path: `${doors.dir}-lifecycle-${n}.db` } });
    const after = await get();
    expect(after.memories).toEqual({ active: 1, archived: 1, forgotten: 1, erased: 0 });
    expect(after.decay).toMatchObject({ ticks: 1, last: { data: { tickId: tick.tickId, affected: 1, decayRate: 0.01 } } });
    // The route reads what the engine's lifecycle status and managed backups say.
    const lifecycle = doors.engine.lifecycle.status();
    expect(after.schedule).toEqual(JSON.parse(JSON.stringify({ nextTick: lifecycle.nextTick, nextConsolidation: lifecycle.nextConsolidation, lastBackup: lifecycle.lastBackup })));
    expect(after.managedBackups).toEqual(JSON.parse(JSON.stringify(doors.engine.backups.list())));
    expect(after.backups.count).toBe(2);
    expect(after.backups.latest.map((b: { data: { path: string } }) => b.data.path)).toEqual([2, 1].map((n) => `${doors.dir}-lifecycle-${n}.db`));
    expect((await doors.call('GET', '/v1/status/lifecycle?backups=1', { token: tokens.admin })).body.backups.latest).toHaveLength(1);
    for (const n of [1, 2]) rmSync(`${doors.dir}-lifecycle-${n}.db`, { force: true });
  });

  it('a token scoped to one user gets only its own', async () => {
    const bobs = (await doors.call('GET', '/v1/memories', { token: tokens.bob })).body.items[0].memoryId as string;
    expect((await doors.call('GET', `/v1/memories/${bobs}/details`, { token: tokens.alice })).status).toBe(404);
    expect((await doors.call('GET', `/v1/memories/${bobs}/details`, { token: tokens.bob })).status).toBe(200);
    expect((await doors.call('GET', '/v1/graph', { token: tokens.alice })).status).toBe(403);
    expect((await doors.call('GET', '/v1/at/memories?at=1', { token: tokens.alice })).status).toBe(403);
    expect((await doors.call('POST', '/v1/compliance/preview', { token: tokens.alice, body: { user: 'u-bob' } })).status).toBe(403);
    expect((await doors.call('GET', '/v1/status/lifecycle', { token: tokens.alice })).status).toBe(403);
    expect((await doors.call('GET', '/v1/graph')).status).toBe(401);
  });
});

describe('the dashboard mount', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-web-'));
  let app: ReturnType<typeof Fastify>;
  beforeAll(async () => {
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>t</title>');
    writeFileSync(join(dir, 'assets', 'main-1.js'), 'console.log(1)');
    writeFileSync(join(dir, '..', 'lmem-web-secret.txt'), 'TOP-SECRET-CONTENT');
    app = Fastify();
    await dashboardMount(dir)(app as unknown as App, {} as DoorContext);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(join(dir, '..', 'lmem-web-secret.txt'), { force: true });
  });

  it('serves the built files under /ui/, sends / there, and nothing outside the build', async () => {
    expect((await app.inject('/')).headers.location).toBe('/ui/');
    const page = await app.inject('/ui/');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const script = await app.inject('/ui/assets/main-1.js');
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toContain('immutable');
    expect((await app.inject('/ui/../lmem-web-secret.txt')).body).not.toContain('TOP-SECRET-CONTENT');
    expect((await app.inject('/ui/%2e%2e/lmem-web-secret.txt')).body).not.toContain('TOP-SECRET-CONTENT');
    expect((await app.inject('/ui/assets/missing.js')).statusCode).toBe(404);
  });
});
