import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/engine/config.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const file = (content: string): string => {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-config-'));
  dirs.push(dir);
  const path = join(dir, 'config.json');
  writeFileSync(path, content);
  return path;
};

describe('configuration', () => {
  it('defaults to ./data', () => {
    expect(loadConfig()).toMatchObject({ dataDir: './data', databaseFile: 'livingmemory.db', sqlite: { synchronous: 'FULL' } });
  });

  it('has the conversation defaults of the issue', () => {
    expect(loadConfig().conversation).toEqual({
      scopeMode: 'legacy', whitelist: { users: [], sessions: [] }, summarizeThresholdRounds: 10, idleGapMinutes: 180,
      maxSegmentsPerRun: 4, injectWithRecentContext: false, recentContextMessages: 4, shutdownTimeoutMs: 5000,
    });
    expect(loadConfig({ env: { LIVINGMEMORY_MEMORY_SCOPE_MODE: 'user' } }).conversation.scopeMode).toBe('user');
  });

  it('layers file, then environment, then flags', () => {
    const config = loadConfig({
      file: file(JSON.stringify({ dataDir: '/from/file', projections: { pageSize: 50 } })),
      env: { LIVINGMEMORY_DATA_DIR: '/from/env', LIVINGMEMORY_PROJECTIONS_PAGE_SIZE: '200', LIVINGMEMORY_ACTOR: '42' },
      overrides: { dataDir: '/from/flag' },
    });
    expect(config).toMatchObject({ dataDir: '/from/flag', projections: { pageSize: 200 }, actor: '42' });
  });

  it.each([
    [{ file: file('{"projections": {"pageSize": 0}}') }, /projections\.pageSize \(from .*config\.json\)/],
    [{ file: file('{"sqlite": {"synchronous": "OFF"}}') }, /sqlite\.synchronous/],
    [{ file: file('{"dataDirectory": "x"}') }, /dataDirectory/],
    [{ file: file('not json') }, /not valid JSON/],
    [{ env: { LIVINGMEMORY_PROJECTIONS_PAGE_SIZE: 'many' } }, /projections\.pageSize \(from environment\)/],
    [{ env: { LIVINGMEMORY_DATADIR: '/x' } }, /LIVINGMEMORY_DATADIR.*unknown setting/],
    [{ env: { LIVINGMEMORY_MEMORY_SCOPE_MODE: 'everyone' } }, /conversation\.scopeMode \(from environment\)/],
    [{ file: file('{"conversation": {"whitelist": {"users": [""]}}}') }, /conversation\.whitelist\.users\.0/],
  ])('refuses %j naming the key', (sources, message) => {
    expect(() => loadConfig(sources)).toThrow(ConfigError);
    expect(() => loadConfig(sources)).toThrow(message);
  });
});
