import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentSchemaVersion, MigrationError, storeMigrations, type Migration } from '../src/engine/migrations.js';
import { manualEnvironment, openLifecycleEngine, removeStore } from './support/lifecycle.js';

/*
 * A store written by the code before ADR 29 (test/fixtures/previous-schema: user_version 0, no
 * store_meta, v1 lifecycle events) opens with this code: a backup first, the schema migrated,
 * the old events upcast, every read model rebuilt from them.
 */

const fixture = join(import.meta.dirname, 'fixtures', 'previous-schema', 'store.db');
let dir: string;
const env = () => manualEnvironment(Date.parse('2026-01-01T12:00:00Z'));
const open = (migrations?: readonly Migration[]) =>
  openLifecycleEngine(dir, env(), { databaseFile: 'store.db' }, migrations ? { migrations } : {});
const userVersion = (): number => {
  const db = new Database(join(dir, 'store.db'), { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lmem-migrate-'));
  copyFileSync(fixture, join(dir, 'store.db'));
});
afterEach(() => removeStore(dir));

describe('opening a store written by the previous schema', () => {
  it('backs up, migrates, upcasts the v1 events and rebuilds the read models from them', async () => {
    expect(userVersion()).toBe(0);
    const engine = await open();
    try {
      expect(userVersion()).toBe(currentSchemaVersion());
      const [backup] = engine.backups.list();
      expect(backup).toMatchObject({ reason: 'before-migration', schemaVersion: 0, position: '17' });
      const store = await engine.log.readStream('system-store');
      expect(store.map((e) => e.type)).toEqual(['StoreMigrated', 'StoreVersionChanged']);
      expect(store[0]?.data).toEqual({ from: 0, to: currentSchemaVersion(), migrations: storeMigrations.map((m) => m.name), backupId: backup?.backupId });
      const all = await engine.log.readAll({ limit: 1000 });
      const decayed = all.find((e) => e.type === 'MemoryImportanceDecayed');
      expect(decayed?.schemaVersion).toBe(2);
      expect(decayed?.type === 'MemoryImportanceDecayed' && decayed.data.decays[0]).toMatchObject({ from: 0.6, to: 0.594, accessFrom: 0, accessTo: 0 });
      const ticked = all.find((e) => e.type === 'DecayTicked');
      expect(ticked?.data).toMatchObject({ date: '2026-01-02', timeZone: 'UTC', atomTransitions: 0 });
      expect(all.find((e) => e.type === 'AtomReinforced')?.data).toMatchObject({ reason: expect.stringMatching(/^restated by memory /) });
      expect(all.find((e) => e.type === 'MemoriesConsolidated')?.data).toMatchObject({ grouping: 'session', retention: 'archive' });
      expect(all.find((e) => e.type === 'BackupTaken' && !e.data.managed)?.data).toMatchObject({ reason: 'requested', contents: 'full' });
      // The read models say what the old events said.
      const docs = engine.documents.list({ limit: null });
      expect(docs.map((d) => [d.text, d.status]).sort()).toEqual([
        ['Alice loves green tea!', 'active'], ['Alice loves green tea. Alice lives in Paris.', 'active'], ['Bob plans to visit Rome next week', 'archived'],
      ]);
      expect(docs.find((d) => d.text.endsWith('Paris.'))?.importance).toBe(0.594);
      expect(engine.indexes.lifecycle.lastTick()?.date).toBe('2026-01-02');
      await engine.indexes.catchUp();
      expect((await engine.recall({ query: 'green tea', scope: { mode: 'global' } })).memories.length).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
    // Opened again: nothing left to migrate, no new backup.
    const again = await open();
    expect(again.backups.list()).toHaveLength(1);
    await again.close();
  });

  it('a failing migration restores the backup and the open fails naming the step', async () => {
    const failing: Migration[] = [...storeMigrations, { version: 99, name: 'breaks', up: () => { throw new Error('boom'); } }];
    await expect(open(failing)).rejects.toThrow(MigrationError);
    await expect(open(failing)).rejects.toThrow(/migration breaks \(schema \d+ -> 99\) failed: boom; the store was restored from backup/);
    // Restored: the old log is whole, the schema is the old one, and this code opens it.
    expect(userVersion()).toBe(0);
    const engine = await open();
    expect(engine.documents.count()).toBe(3);
    await engine.close();
  });

  it('a migration whose backup fails does not start', async () => {
    // A directory where the copy's temporary file must go (ids come from the test's clock).
    mkdirSync(join(`${dir}-backups`, '20260101T120000Z-before-migration.db.partial'), { recursive: true });
    await expect(open()).rejects.toThrow(/backup before migrating schema 0 -> \d+ failed, so no migration ran/);
    expect(userVersion()).toBe(0);
  });
});
