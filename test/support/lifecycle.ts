import { rmSync } from 'node:fs';
import type { Environment } from '../../src/engine/clock.js';
import type { RecordedEvent } from '../../src/events/log/event-log.js';
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

/** Every read model wiped and replayed from the log (the SQLite ones in one replay, then both vector indexes); their digests after. */
export async function replayedDigests(engine: MemoryEngine): Promise<Record<string, string>> {
  await engine.runner.rebuildAll(engineProjections.map((p) => p.name), 'test replay');
  await engine.indexes.vectors.rebuild();
  await engine.indexes.graphVectors.rebuild();
  return digests(engine);
}

/** Removes a test's data dir and the managed backups beside it. */
export function removeStore(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}-backups`, { recursive: true, force: true });
}

/**
 * Checks that every tick in `events` is whole: its DecayTicked, decays summing to what it says it
 * affected, its atom transitions, and nothing of a tick without its DecayTicked. Returns the ticks.
 */
export function wholeTicks(events: readonly RecordedEvent[]): number {
  const said = new Map<string, { affected: number; atomTransitions: number }>();
  const seen = new Map<string, { decays: number; atoms: number }>();
  const of = (tickId: string) => {
    const found = seen.get(tickId) ?? { decays: 0, atoms: 0 };
    seen.set(tickId, found);
    return found;
  };
  for (const e of events) {
    if (e.type === 'DecayTicked') {
      const d = e.data as { tickId: string; affected: number; atomTransitions: number };
      said.set(d.tickId, { affected: d.affected, atomTransitions: d.atomTransitions });
    } else if (e.type === 'MemoryImportanceDecayed') {
      const d = e.data as { tickId: string; decays: unknown[] };
      of(d.tickId).decays += d.decays.length;
    } else if (e.type === 'AtomStateChanged' && e.metadata.actor === 'system:lifecycle') {
      of(e.metadata.correlationId).atoms += 1;
    }
  }
  for (const [tickId, got] of seen) {
    const expected = said.get(tickId);
    if (!expected) throw new Error(`${tickId}: effects without its DecayTicked`);
    if (expected.affected !== got.decays || expected.atomTransitions !== got.atoms) {
      throw new Error(`${tickId}: says ${expected.affected} decays and ${expected.atomTransitions} atom transitions, the log holds ${got.decays} and ${got.atoms}`);
    }
  }
  for (const [tickId, expected] of said) {
    if (!seen.has(tickId) && (expected.affected > 0 || expected.atomTransitions > 0)) throw new Error(`${tickId}: its effects are missing`);
  }
  return said.size;
}
