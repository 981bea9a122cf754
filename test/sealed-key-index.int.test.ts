import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSqliteEventLog } from '../src/events/log/sqlite-event-log.js';
import { memoryWrittenEvent } from './support/events.js';
import { openTestStore } from './support/store.js';

const users = ['u0', 'u1', 'u2'];
const sessions = ['s0', 's1'];

/** What a key sealed, by a scan of every row's envelope: the index must say the same. */
const scanned = (db: ReturnType<typeof openTestStore>['db']) =>
  db
    .prepare(`SELECT k.value AS keyId, e.global_position AS position FROM events e, json_each(e.data, '$."$sealed".k') k ORDER BY 1, 2`)
    .all();
const indexed = (db: ReturnType<typeof openTestStore>['db']) => db.prepare('SELECT key_id AS keyId, position FROM sealed_keys ORDER BY 1, 2').all();

describe('the key index of sealed positions (ADR 19, ADR 32)', () => {
  it('given any appends, when read, then it holds exactly the key ids of every sealed row; a store without it is indexed on open', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ user: fc.constantFrom(...users), session: fc.constantFrom(...sessions), memories: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        async (appends, cut) => {
          const store = openTestStore([]);
          try {
            let n = 0;
            for (const a of appends) {
              const events = Array.from({ length: a.memories }, () => memoryWrittenEvent(`m${(n += 1)}`, `words of m${n}`, { userId: a.user, sessionId: a.session }));
              // One stream per memory, as the engine writes them; several in one append.
              await store.log.appendAll?.(events.map((e) => ({ streamId: `memory-${(e.data as { memoryId: string }).memoryId}`, events: [e] })));
            }
            expect(indexed(store.db)).toEqual(scanned(store.db));
            // A store from before the index, or rows a build without it appended after `cut`: found on the next open.
            const head = store.db.prepare('SELECT max(global_position) FROM events').pluck().get() as number;
            const from = cut % (head + 1);
            if (from === 0) store.db.exec('DROP TABLE sealed_keys; DROP TABLE sealed_keys_head');
            else {
              store.db.prepare('DELETE FROM sealed_keys WHERE position > ?').run(from);
              store.db.prepare('UPDATE sealed_keys_head SET position = ?').run(from);
            }
            createSqliteEventLog(store.db);
            expect(indexed(store.db)).toEqual(scanned(store.db));
            const u0 = (await store.log.sealedEvents({ kind: 'user', id: 'u0' })).map((e) => e.globalPosition);
            const expected = appends.flatMap((a) => Array.from({ length: a.memories }, () => a.user)).flatMap((user, i) => (user === 'u0' ? [BigInt(i + 1)] : []));
            expect(u0).toEqual(expected);
          } finally {
            store.close();
          }
        },
      ),
      { numRuns: 30 },
    );
  });
});
