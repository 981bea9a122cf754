import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { applyDecayBatch } from '../src/projections/decays.js';
import { documentsProjection } from '../src/projections/documents.js';
import type { ProjectionTx } from '../src/projections/projection.js';
import { bindGeneration } from '../src/projections/tx.js';

/*
 * The documents projection applies a batch of decays with a few joined UPDATEs instead of one
 * statement per decay (src/projections/decays.ts). Whatever the rows and the batch (ids missing,
 * erased, named twice or out of order, a tick's `from` that no longer matches, batches longer than one chunk),
 * the vitals rows must end exactly as one statement per decay, in order, leaves them.
 */

const dir = mkdtempSync(join(tmpdir(), 'lmem-decay-apply-'));
const db = openDatabase(join(dir, 'store.db'), { synchronous: 'NORMAL' });
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const batched = bindGeneration(db, documentsProjection, 1);
const oneByOne = bindGeneration(db, documentsProjection, 2);
documentsProjection.init(batched);
documentsProjection.init(oneByOne);

/** The per-decay statement the projection ran before the batches. */
function applyOneByOne(tx: ProjectionTx, decays: readonly Decay[]): void {
  for (const d of decays) {
    tx.run(
      `UPDATE {memory_vitals} SET importance = CASE WHEN importance = ? THEN ? ELSE importance END,
         access_count = max(0, access_count - ?)
       WHERE memory_id = ? AND status <> 'erased'`,
      d.from, d.to, d.accessFrom - d.accessTo, d.memoryId,
    );
  }
}

interface Decay { memoryId: string; from: number; to: number; accessFrom: number; accessTo: number }
interface Vital { memoryId: string; status: string; importance: number; accessCount: number }

// Few ids and few values, so batches name missing and repeated memories and `from` often matches.
const id = fc.nat(400).map((n) => `m-${n}`);
const value = fc.oneof(fc.constantFrom(0.01, 0.5, 0.4975, 1), fc.double({ min: 0, max: 1, noNaN: true }));
const vital = fc.record({ memoryId: id, status: fc.constantFrom('active', 'active', 'archived', 'erased'), importance: value, accessCount: fc.nat(20) });
const decay = fc.record({ memoryId: id, from: value, to: value, accessFrom: fc.nat(20), accessTo: fc.nat(20) });
const batch = fc.oneof(
  fc.array(decay, { minLength: 1, maxLength: 700, size: 'max' }),
  // Distinct ids in order, as the decider writes them: the joined path.
  fc.uniqueArray(decay, { minLength: 1, maxLength: 700, size: 'max', selector: (d) => d.memoryId }).map((ds) => ds.sort((a, b) => (a.memoryId < b.memoryId ? -1 : 1))),
);

const rows = (tx: ProjectionTx) => tx.all(`SELECT * FROM {memory_vitals} ORDER BY memory_id`);

function given(tx: ProjectionTx, vitals: readonly Vital[]): void {
  tx.run('DELETE FROM {memory_vitals}');
  for (const v of vitals) {
    tx.run(
      `INSERT INTO {memory_vitals} (memory_id, status, created_at, importance, access_count, last_accessed_at)
       VALUES (?, ?, '2025-01-01T00:00:00.000Z', ?, ?, NULL) ON CONFLICT DO NOTHING`,
      v.memoryId, v.status, v.importance, v.accessCount,
    );
  }
}

describe('a decay batch applied in chunks', () => {
  it('given any vitals rows, when a batch is applied, then the rows equal one statement per decay in order', () => {
    fc.assert(
      fc.property(fc.array(vital, { maxLength: 500, size: 'max' }), fc.array(batch, { minLength: 1, maxLength: 3 }), (vitals, batches) => {
        given(batched, vitals);
        given(oneByOne, vitals);
        for (const b of batches) {
          applyDecayBatch(batched, b);
          applyOneByOne(oneByOne, b);
        }
        expect(rows(batched)).toStrictEqual(rows(oneByOne));
      }),
      { numRuns: 100 },
    );
  });

  it('given a batch of 1000 distinct memories, when applied, then each one decays once', () => {
    const vitals = Array.from({ length: 1000 }, (_, i) => ({ memoryId: `m-${String(i).padStart(4, '0')}`, status: 'active', importance: 0.5, accessCount: 4 }));
    given(batched, vitals);
    applyDecayBatch(batched, vitals.map((v) => ({ memoryId: v.memoryId, from: 0.5, to: 0.495, accessFrom: 4, accessTo: 2 })));
    expect(batched.all('SELECT DISTINCT importance, access_count FROM {memory_vitals}')).toStrictEqual([{ importance: 0.495, access_count: 2 }]);
  });
});
