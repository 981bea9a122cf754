import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import { startHttpServer } from '../src/interfaces/http/server.js';
import { tempDir, testEnvironment } from './support/engine.js';
import { eventStoreTarget, eventStoreUnderTest, type EventStoreUnderTest } from './support/eventstore-log.js';

// The REST API over a shared EventStoreDB log (the TEST STAND-IN here, or a real server with
// EVENTSTORE_URL), whose positions are commit positions: increasing, with gaps.
describe(`the REST log view on EventStoreDB (${eventStoreTarget})`, () => {
  let target: EventStoreUnderTest;
  let dir: ReturnType<typeof tempDir>;
  let engine: MemoryEngine;
  let http: Awaited<ReturnType<typeof startHttpServer>>;
  beforeEach(async () => {
    target = await eventStoreUnderTest();
    dir = tempDir();
    const eventstoredb = { connectionString: target.url, namespace: target.namespace };
    const config = loadConfig({ overrides: { dataDir: dir.dir, server: { port: 0 }, log: { kind: 'eventstoredb', eventstoredb } } });
    engine = await createMemoryEngine(config, { env: testEnvironment(Date.UTC(2026, 0, 1), 'http'), maintenance: false });
    http = await startHttpServer(engine, config);
  });
  afterEach(async () => {
    await http.close();
    await engine.close();
    dir.remove();
    await target.cleanup();
  });

  it('GET /v1/events without from answers the last `limit` events, whatever the gaps between positions', async () => {
    for (const text of ['Ann grows tomatoes', 'Ben fixes bikes', 'Cleo sings in a choir']) await engine.writeMemory({ text });
    const all = await engine.log.readAll({ limit: 1000 });
    const res = await fetch(`${http.address}/v1/events?limit=2`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { events: { globalPosition: unknown }[]; head: unknown; next: unknown };
    expect(body.events.map((e) => String(e.globalPosition))).toEqual(all.slice(-2).map((e) => String(e.globalPosition)));
    expect(body.next).toBeNull();
  });
});
