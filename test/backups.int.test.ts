import Database from 'better-sqlite3';
import { copyFileSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keptTables, backupPaths } from '../src/engine/backups/files.js';
import { copyLog, copyLogOffTheLoop } from '../src/engine/backups/copy-log.js';
import { offTheLoop } from '../src/engine/backups/off-the-loop.js';
import { liveCacheKeys, shredBackup } from '../src/engine/backups/shred-backup.js';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import type { MemoryEngine } from '../src/engine/engine.js';
import { dayMs, digests, manualEnvironment, openLifecycleEngine, removeStore } from './support/lifecycle.js';

let dir: string;
let env: ReturnType<typeof manualEnvironment>;
let engine: MemoryEngine;
const open = (options: Parameters<typeof openLifecycleEngine>[3] = {}, overrides: Record<string, unknown> = {}) =>
  openLifecycleEngine(dir, env, overrides, options);
const tablesOf = (path: string): string[] => {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all() as string[]);
  } finally {
    db.close();
  }
};

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lmem-backups-'));
  env = manualEnvironment(Date.parse('2026-03-01T10:00:00Z'));
  engine = await open();
});
afterEach(async () => {
  await engine.close();
  removeStore(dir);
});

describe('managed backups', () => {
  it('live beside the data dir, hold the log and keys without read models, and are checked after writing', async () => {
    await engine.writeMemory({ text: 'Alice loves green tea', userId: 'alice' });
    const m = await engine.backups.take('manual');
    expect(engine.backups.dir).toBe(`${dir}-backups`);
    expect(m).toMatchObject({ reason: 'manual', contents: 'log', position: String(await engine.log.headPosition() - 1n) });
    const file = backupPaths(engine.backups.dir, m.backupId).db;
    expect(tablesOf(file).every((t) => keptTables.includes(t))).toBe(true);
    expect(tablesOf(file)).toEqual(expect.arrayContaining(['events', 'streams', 'subject_keys']));
    await expect(engine.backups.verify(m.backupId)).resolves.toMatchObject({ backupId: m.backupId });
    // A changed file fails the check before it can replace the store.
    writeFileSync(file, Buffer.concat([Buffer.from('x'), Buffer.alloc(10)]));
    await expect(engine.backups.verify(m.backupId)).rejects.toThrow(/sha256 differs/);
    const taken = (await engine.log.readStream('system-backups')).find((e) => e.type === 'BackupTaken');
    expect(taken?.data).toMatchObject({ backupId: m.backupId, managed: true, contents: 'log', verified: true, reason: 'manual' });
  });

  it('copy the log on a thread of their own: the event loop turns during the copy, which holds what a copy on this thread holds', async () => {
    for (let i = 0; i < 20; i += 1) await engine.writeMemory({ text: `Note ${i} about the garden`, userId: 'alice' });
    const [here, there] = [join(dir, 'here.db'), join(dir, 'there.db')];
    const store = openDatabase(join(dir, 'livingmemory.db'));
    copyLog(store, here);
    let turns = 0;
    const ticking = setInterval(() => (turns += 1), 0);
    await copyLogOffTheLoop(store, there);
    store.close();
    clearInterval(ticking);
    // A copy on this thread would have ended before any timer ran.
    expect(turns).toBeGreaterThan(0);
    const rows = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return keptTables.filter((t) => tablesOf(path).includes(t)).map((t) => [t, db.prepare(`SELECT count(*) FROM "${t}"`).pluck().get()]);
      } finally {
        db.close();
      }
    };
    expect(tablesOf(there)).toEqual(tablesOf(here));
    expect(rows(there)).toEqual(rows(here));
  });

  it('copy the schema version and the key counter: a key id erased before the backup is not given again after a restore', async () => {
    await engine.writeMemory({ text: 'Alice loves green tea', userId: 'alice' });
    await engine.writeMemory({ text: 'Zed keeps bees', userId: 'zed' });
    await engine.eraseSubject({ kind: 'user', id: 'zed', reason: 'asked' });
    const m = await engine.backups.take('manual');
    const read = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return { seq: db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'subject_keys'`).pluck().get(), version: db.pragma('user_version', { simple: true }) };
      } finally {
        db.close();
      }
    };
    const live = read(join(dir, 'livingmemory.db'));
    expect(live.seq).toBeGreaterThan(0);
    expect(read(backupPaths(engine.backups.dir, m.backupId).db)).toEqual(live);
  });

  it('refuses a backups.dir inside the data dir', async () => {
    await engine.close();
    await expect(open({}, { backups: { dir: join(dir, 'backups') } })).rejects.toThrow(/backups\.dir/);
    engine = await open();
  });

  it('restore-backup puts the store back as it was (read models replayed), after backing up the store first', async () => {
    await engine.writeMemory({ text: 'kept: Alice loves green tea', sessionId: 's1' });
    await engine.indexes.catchUp();
    const m = await engine.backups.take('manual');
    await engine.indexes.catchUp();
    const before = digests(engine);
    await engine.writeMemory({ text: 'written after the backup', sessionId: 's1' });
    const receipt = await engine.restoreBackup(m.backupId);
    expect(receipt).toMatchObject({ backupId: m.backupId, position: m.position });
    engine = await open();
    await engine.indexes.catchUp();
    const after = digests(engine);
    for (const name of ['documents', 'fts', 'atoms', 'graph', 'memory_sources', 'vectors']) expect(after[name]).toBe(before[name]);
    expect(engine.documents.list().map((d) => d.text)).toEqual(['kept: Alice loves green tea']);
    const restored = (await engine.log.readStream('system-backups')).at(-1);
    expect(restored).toMatchObject({ type: 'BackupRestored', data: { backupId: m.backupId, safetyBackupId: receipt.safetyBackupId } });
    // The safety backup holds the store as it was before the restore.
    expect(engine.backups.list().map((b) => b.reason)).toEqual(expect.arrayContaining(['before-restore', 'manual']));
  });

  it('keeps backups keepDays days, the newest always', async () => {
    await engine.writeMemory({ text: 'something' });
    const first = await engine.backups.take('manual');
    env.advance(8 * dayMs);
    const second = await engine.backups.take('manual');
    expect(await engine.backups.prune()).toEqual([first.backupId]);
    env.advance(30 * dayMs);
    expect(await engine.backups.prune()).toEqual([]);
    expect(engine.backups.list().map((b) => b.backupId)).toEqual([second.backupId]);
    expect((await engine.log.readStream('system-backups')).some((e) => e.type === 'BackupRemoved')).toBe(true);
  });

  it('an erasure backs up first, then shreds the subject in every managed backup: a restore does not bring it back', async () => {
    await engine.writeMemory({ text: 'Alice secret: the key is under the mat', userId: 'alice' });
    await engine.writeMemory({ text: 'Bob likes chess', userId: 'bob' });
    const old = await engine.backups.take('manual');
    await engine.eraseSubject({ kind: 'user', id: 'alice', reason: 'asked' });
    const reasons = engine.backups.list().map((b) => b.reason);
    expect(reasons).toContain('before-erase');
    const shredded = (await engine.log.readStream('system-backups')).filter((e) => e.type === 'BackupShredded');
    expect(shredded.length).toBe(engine.backups.list().length);
    const cacheRows = (path: string): string[] => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare(`SELECT fingerprint || ' ' || content_hash FROM embedding_cache ORDER BY 1`).pluck().all() as string[];
      } finally {
        db.close();
      }
    };
    const live = cacheRows(join(dir, 'livingmemory.db'));
    for (const b of engine.backups.list()) {
      const path = backupPaths(engine.backups.dir, b.backupId).db;
      const db = new Database(path, { readonly: true });
      expect(db.prepare(`SELECT count(*) AS n FROM subject_keys WHERE kind = 'user' AND subject_id = 'alice'`).get()).toEqual({ n: 0 });
      db.close();
      // Alice's text's vector went from the live cache, and from the backups too; Bob's stays.
      expect(cacheRows(path)).toEqual(live);
    }
    const finished = (await engine.log.readStream('system-erasures')).filter((e) => e.type === 'ErasureStepCompleted').map((e) => (e.data as { step: string }).step);
    expect(finished.at(-1)).toBe('shred-managed-backups');
    await engine.restoreBackup(old.backupId);
    engine = await open();
    const texts = engine.documents.list().map((d) => [d.text, d.status]);
    expect(texts).toContainEqual(['Bob likes chess', 'active']);
    expect(texts.find(([t]) => String(t).includes('under the mat'))).toBeUndefined();
  });

  it('shred a backup on a thread of their own, with what a shred on this thread destroys', async () => {
    await engine.writeMemory({ text: 'Alice secret: the key is under the mat', userId: 'alice' });
    await engine.writeMemory({ text: 'Bob likes chess', userId: 'bob' });
    const m = await engine.backups.take('manual');
    const [here, there] = [join(dir, 'here.db'), join(dir, 'there.db')];
    for (const path of [here, there]) copyFileSync(backupPaths(engine.backups.dir, m.backupId).db, path);
    // Alice's key and her text's cached vector leave the live store (and the managed backups); the copies still hold both.
    await engine.eraseSubject({ kind: 'user', id: 'alice', reason: 'asked' });
    const subject = { kind: 'user', id: 'alice' };
    const file = join(dir, 'livingmemory.db');
    const store = openDatabase(file);
    const onThisThread = shredBackup(liveCacheKeys(store), here, subject);
    const [onTheThread] = await offTheLoop(store, { job: 'shred', store: file, paths: [there], subject }, (): number[] => {
      throw new Error('the shred ran on the event loop\'s thread');
    });
    store.close();
    expect(onThisThread).toBe(1);
    expect(onTheThread).toBe(onThisThread);
    const left = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return [db.prepare('SELECT kind, subject_id FROM subject_keys ORDER BY 1, 2').all(), db.prepare('SELECT fingerprint, content_hash FROM embedding_cache ORDER BY 1, 2').all()];
      } finally {
        db.close();
      }
    };
    expect(left(there)).toEqual(left(here));
  });

  it('an import backs up first; a bad file changes nothing, not even a backup', async () => {
    const content = JSON.stringify([{ text: 'imported one' }]);
    await expect(engine.importMemories({ content: '[{"text": ""}]' })).rejects.toThrow();
    expect(engine.backups.list()).toEqual([]);
    await engine.importMemories({ content });
    expect(engine.backups.list().map((b) => b.reason)).toEqual(['before-import']);
  });

  it('a new package version takes a backup and records the change; the same version again does not', async () => {
    await engine.writeMemory({ text: 'from the old version' });
    await engine.close();
    engine = await open({ packageVersion: '9.9.9' });
    expect(engine.backups.list().map((b) => b.reason)).toEqual(['version-change']);
    const changed = (await engine.log.readStream('system-store')).filter((e) => e.type === 'StoreVersionChanged');
    expect(changed.map((e) => e.data)).toEqual([{ from: expect.any(String), to: '9.9.9', backupId: engine.backups.list()[0]?.backupId }]);
    await engine.close();
    engine = await open({ packageVersion: '9.9.9' });
    expect(engine.backups.list()).toHaveLength(1);
    expect(existsSync(join(dir, 'backups'))).toBe(false);
  });
});
