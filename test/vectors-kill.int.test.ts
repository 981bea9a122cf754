import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteLockedHead } from '../src/events/log/sqlite-event-log.js';
import { createVectorStore } from '../src/projections/vectors/vector-store.js';
import { writeTestMemory } from './support/memory-events.js';
import { openTestStore, type TestStore } from './support/store.js';
import { testVectorSource, vectorFor } from './support/vector-source.js';

let store: TestStore;
afterEach(() => store?.close());

/** Starts the rebuild in a child process and kills it with SIGKILL after its second progress report. */
function killMidRebuild(dbPath: string, dir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['test/support/vector-rebuild-child.mjs', dbPath, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if ((out.match(/progress/g) ?? []).length >= 2) child.kill('SIGKILL');
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(out) : reject(new Error(`child exited without being killed: ${out} ${err}`))));
  });
}

describe('a vector rebuild killed with SIGKILL', () => {
  it('leaves the live index serving and resumes on restart', async () => {
    store = openTestStore();
    const dir = mkdtempSync(join(tmpdir(), 'lmem-vectors-kill-'));
    try {
      for (let n = 0; n < 1000; n += 1) await writeTestMemory(store.log, n);
      const source = testVectorSource();
      const live = createVectorStore({ db: store.db, log: store.log, dir, source, lockedHead: sqliteLockedHead(store.db) });
      await live.catchUp();
      await live.close();

      const out = await killMidRebuild(store.path, dir);
      expect(out).not.toContain('finished');
      expect(existsSync(join(dir, 'vectors-g2.snap'))).toBe(true);

      const restarted = createVectorStore({ db: store.db, log: store.log, dir, source: testVectorSource(), lockedHead: sqliteLockedHead(store.db) });
      const building = restarted.status().building;
      expect(building?.generation).toBe(2);
      expect(building?.checkpoint).toBeGreaterThan(0n);
      expect(building?.checkpoint).toBeLessThan(1000n);
      // The live generation still answers while the shadow waits.
      expect(restarted.status()).toMatchObject({ generation: 1, size: 1000 });
      expect((await restarted.search(vectorFor(source.keyOf('memory number 42'), 8), 1))[0]?.id).toBe('m42');

      const resumed = await restarted.rebuild();
      expect(resumed).toMatchObject({ status: 'completed', resumed: true, generation: 2, size: 1000 });
      expect(resumed.checkpoint).toBe(1000n);
      expect(existsSync(join(dir, 'vectors-g1.snap'))).toBe(false);
      await restarted.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
