import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine, engineProjections, type EngineOptions, type MemoryEngine } from '../../src/engine/engine.js';
import { testEnvironment } from './engine.js';

let opened = 0;

/** An engine (a node) on its own folder, with its log in EventStoreDB: `url` and `namespace` are shared by its peers. */
export async function openEventStoreEngine(
  dir: string,
  url: string,
  namespace: string,
  options: EngineOptions & { readonly readYourWritesTimeoutMs?: number } = {},
): Promise<MemoryEngine> {
  opened += 1;
  const { readYourWritesTimeoutMs, ...engineOptions } = options;
  const eventstoredb = { connectionString: url, namespace, ...(readYourWritesTimeoutMs === undefined ? {} : { readYourWritesTimeoutMs }) };
  const config = loadConfig({ overrides: { dataDir: dir, log: { kind: 'eventstoredb', eventstoredb } } });
  return createMemoryEngine(config, { env: testEnvironment(Date.UTC(2026, 0, 1), `n${opened}`), maintenance: false, ...engineOptions });
}

/** Every read model's digest, the SQLite ones then the two vector indexes. */
export async function engineDigests(engine: MemoryEngine): Promise<Record<string, string>> {
  await engine.indexes.catchUp();
  return {
    ...Object.fromEntries(engineProjections.map((p) => [p.name, engine.runner.digest(p.name)])),
    vectors: engine.indexes.vectors.digest(),
    graphVectors: engine.indexes.graphVectors.digest(),
  };
}

/** Waits until `done()` holds, failing after `ms`. */
export async function eventually(done: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await done())) {
    if (Date.now() - start > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
