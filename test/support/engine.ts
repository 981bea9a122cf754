import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Environment } from '../../src/engine/clock.js';
import { loadConfig } from '../../src/engine/config.js';
import { createHashEmbeddingProvider } from '../../src/providers/embeddings/hash.js';
import type { EmbeddingProvider } from '../../src/providers/embeddings/provider.js';
import { createMemoryEngine, type EngineOptions, type MemoryEngine } from '../../src/engine/engine.js';

/** A clock and id source that tests control: one second and one id per call. */
export function testEnvironment(start = Date.UTC(2026, 0, 1), prefix = 'id'): Environment & { calls: number } {
  const env = {
    calls: 0,
    now: () => new Date(start + env.calls * 1000),
    newId: () => `${prefix}-${(env.calls += 1)}`,
  };
  return env;
}

/** Wraps a provider to count texts it embeds and to fail on demand (a provider that is down). */
export function controllableProvider(inner: EmbeddingProvider = createHashEmbeddingProvider({ dimension: 32 })) {
  const control = { embedded: 0, down: false };
  const provider: EmbeddingProvider = {
    fingerprint: inner.fingerprint,
    maxInputChars: inner.maxInputChars,
    async embed(texts) {
      if (control.down) throw new Error('provider down');
      control.embedded += texts.length;
      return inner.embed(texts);
    },
  };
  return { provider, control };
}

let opened = 0;

/** An engine on `dir` without background maintenance; each opening gets its own id prefix, as UUIDs would. */
export async function openTestEngine(dir: string, options: EngineOptions = {}) {
  opened += 1;
  const env = testEnvironment(Date.UTC(2026, 0, 1), `e${opened}`);
  // No dictionary load at open (a second a test file): a test is not a server that must not stall later.
  return createMemoryEngine(loadConfig({ overrides: { dataDir: dir } }), { env, maintenance: false, warmTokenizer: false, ...options });
}

/** Removes a data dir and what the engine writes beside it: managed backups (ADR 29) and exports. */
export function removeDataDir(dir: string): void {
  for (const suffix of ['', '-backups', '-exports']) rmSync(`${dir}${suffix}`, { recursive: true, force: true });
}

export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-engine-'));
  return { dir, remove: () => removeDataDir(dir) };
}

/** Opens a fresh test engine on a temporary folder before each test and closes and removes it after. */
export function useTestEngine(set: (engine: MemoryEngine) => void, options: EngineOptions = {}): void {
  let temp: ReturnType<typeof tempDir> | undefined;
  let engine: MemoryEngine | undefined;
  beforeEach(async () => {
    temp = tempDir();
    engine = await openTestEngine(temp.dir, options);
    set(engine);
  });
  afterEach(async () => {
    await engine?.close();
    temp?.remove();
  });
}
