import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { engineProjections } from '../src/engine/indexes.js';
import { digestFromFile, digestPlan, projectionDigest, projectionDigestAt } from '../src/projections/digest.js';
import { digestOnThread } from '../src/projections/digest-worker.js';
import { createGenerationStore } from '../src/projections/generations.js';
import { openTestEngine, tempDir } from './support/engine.js';

const dirs: { remove: () => void }[] = [];
afterEach(() => dirs.splice(0).forEach((d) => d.remove()));

describe('a generation digest made on a thread of its own (issue 17)', () => {
  it('given a store with memories, then every projection digests on the thread as it does on the caller, with its checkpoint', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const engine = await openTestEngine(dir.dir);
    for (let i = 0; i < 30; i += 1) await engine.writeMemory({ text: `Alice met Bob in Lisbon on day ${i} and talked about jazz` });
    await engine.close();
    const db = openDatabase(join(dir.dir, 'livingmemory.db'));
    try {
      const generations = createGenerationStore(db);
      for (const projection of engineProjections) {
        const live = generations.live(projection.name);
        expect(live).toBeDefined();
        const generation = live?.generation as number;
        const plan = digestPlan(db.name, projection, generation);
        const onThread = await digestOnThread(plan);
        expect(onThread).not.toBeNull();
        expect(onThread).toEqual(digestFromFile(plan));
        expect(onThread?.digest).toBe(projectionDigest(db, projection, generation));
        expect(onThread?.position).toBe(live?.checkpoint);
        expect(await projectionDigestAt(db, projection, generation)).toEqual(onThread);
      }
    } finally {
      db.close();
    }
  });
});
