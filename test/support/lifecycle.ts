import { rmSync } from 'node:fs';
import type { Environment } from '../../src/engine/clock.js';
import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine, engineProjections, type EngineOptions, type MemoryEngine } from '../../src/engine/engine.js';
import { createHashEmbeddingProvider } from '../../src/providers/embeddings/hash.js';

export const dayMs = 86_400_000;

/** A clock the test sets, and ids from a counter: two stores fed the same steps write the same events. */
export function manualEnvironment(startMs: number, prefix = 'id'): Environment & { ms: number; advance(ms: number): void; set(at: string | number): void } {
  let n = 0;
  const env = {
    ms: startMs,
    now: () => new Date(env.ms),
    newId: () => `${prefix}-${(n += 1)}`,
    advance: (ms: number) => void (env.ms += ms),
    set: (at: string | number) => void (env.ms = typeof at === 'number' ? at : Date.parse(at)),
  };
  return env;
}

/** An engine on `dir` with the lifecycle settings given, the scheduler off unless asked, hash embeddings. */
export async function openLifecycleEngine(
  dir: string,
  env: Environment,
  overrides: Record<string, unknown> = {},
  options: EngineOptions = {},
): Promise<MemoryEngine> {
  const config = loadConfig({ overrides: { dataDir: dir, ...overrides } });
  return createMemoryEngine(config, {
    env, maintenance: false, scheduler: false, embeddingProvider: createHashEmbeddingProvider({ dimension: 64 }), llmProvider: null, ...options,
  });
}

/** Every SQLite projection's digest and both vector indexes': what "the same store" means. */
export function digests(engine: MemoryEngine): Record<string, string> {
  return {
    ...Object.fromEntries(engineProjections.map((p) => [p.name, engine.runner.digest(p.name)])),
    vectors: engine.indexes.vectors.digest(),
    graphVectors: engine.indexes.graphVectors.digest(),
  };
}

/** Removes a test's data dir and the managed backups beside it. */
export function removeStore(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}-backups`, { recursive: true, force: true });
}
