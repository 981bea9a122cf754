import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { configDefaults } from '../src/engine/config-defaults.js';
import { ConfigError, configSchema, loadConfig } from '../src/engine/config.js';
import { fieldPath } from '../src/events/errors.js';

// Values each setting may be given: accepted ones, refused ones, and shapes of the wrong kind.
const samples: Record<string, readonly unknown[]> = {
  dataDir: ['/tmp/store', '', 7, undefined],
  actor: ['agent-7', ''],
  sqlite: [{ synchronous: 'NORMAL' }, { synchronous: 'OFF' }, {}],
  projections: [{ pageSize: 50 }, { pageSize: 0 }, { approximateVectors: null }, { approximateVectors: { m: 2 } }],
  embedding: [{ provider: 'hash', dimension: 64 }, { provider: 'openai' }, { scripts: ['Latin'] }, { provider: 'nope' }],
  rerank: [{ provider: 'http' }, { timeoutMs: 5 }],
  conversation: [{ scopeMode: 'user' }, { scopeMode: 'all' }, { whitelist: { users: ['u1'] } }],
  llm: [{ identityAliases: { a: 'Ann' } }, { provider: 'openai' }, undefined],
  lifecycle: [{ decay: { hour: 5, timeZone: 'Europe/Paris' } }, { decay: { hour: 24 } }, { scheduler: false }, 'daily'],
  backups: [{ keepDays: 1 }, { keepDays: -1 }],
  log: [{ kind: 'eventstoredb' }, { eventstoredb: { namespace: 'a b' } }],
  server: [{ port: 9000 }, { port: -1 }, { tokens: [{ token: 'x'.repeat(16), actor: 'bot' }] }, { tokens: [{ token: 'short', actor: 'bot' }] }],
  limits: [{ memoryTextBytes: 1024 }, { memoryTextBytes: 0 }],
  dataDirectory: ['/tmp/typo'],
};

const givenConfig = fc
  .subarray(Object.keys(samples), { minLength: 0 })
  .chain((keys) => fc.tuple(...keys.map((key) => fc.constantFrom(...(samples[key] ?? [])).map((value) => [key, value] as const))))
  .map((entries) => Object.fromEntries(entries));

describe('configuration defaults without the schemas', () => {
  it('are what the schema gives for an empty configuration, key for key and in its order', () => {
    const parsed = configSchema().parse({});
    expect(configDefaults()).toStrictEqual(parsed);
    // A failure here: a default changed; run .ci/config-defaults.mjs after a build (see that file).
    expect(JSON.stringify(configDefaults())).toBe(JSON.stringify(parsed));
  });

  it('are a fresh object at each call', () => {
    const first = configDefaults();
    first.lifecycle.decay.hour = 9;
    first.server.tokens.push({ token: 'x'.repeat(16), actor: 'a', userId: null });
    expect(configDefaults().lifecycle.decay.hour).toBe(3);
    expect(configDefaults().server.tokens).toEqual([]);
  });

  it('load any configuration as the whole schema would: the same settings, or the same refused field', () => {
    fc.assert(
      fc.property(givenConfig, (given) => {
        const expected = configSchema().safeParse(given);
        if (expected.success) {
          const loaded = loadConfig({ overrides: given });
          expect(loaded).toStrictEqual(expected.data);
          expect(JSON.stringify(loaded)).toBe(JSON.stringify(expected.data));
        } else {
          const issue = expected.error.issues[0];
          const refused = (() => {
            try {
              loadConfig({ overrides: given });
            } catch (error) {
              return error;
            }
            return undefined;
          })();
          expect(refused).toBeInstanceOf(ConfigError);
          expect((refused as ConfigError).key).toBe(fieldPath(issue?.path ?? []));
          expect((refused as ConfigError).message).toContain(issue?.message ?? '');
        }
      }),
      { numRuns: 300 },
    );
  });
});
