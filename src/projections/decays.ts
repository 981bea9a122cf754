import type { EventOf } from '../events/catalog.js';
import type { ProjectionTx } from './projection.js';

type Decay = EventOf<'MemoryImportanceDecayed'>['data']['decays'][number];

// Rows per statement: a tick's 95k decays cost 95k native calls one by one; a few hundred rows per
// call let SQLite's own loop do the lookups (ADR 29, addendum 6). Short chunks are padded with NULL
// ids, which match no row, so one prepared statement serves every chunk.
const rows = 250;
const values = Array.from({ length: rows }, () => '(?, ?, ?, ?)').join(', ');

// The same change as `oneDecay`, per row of the VALUES list (column1..4: from, to, taken, id).
const manyDecays = `UPDATE {memory_vitals} AS v
  SET importance = CASE WHEN v.importance = j.column1 THEN j.column2 ELSE v.importance END,
    access_count = max(0, v.access_count - j.column3)
  FROM (VALUES ${values}) AS j
  WHERE v.memory_id = j.column4 AND v.status <> 'erased'`;

const oneDecay = `UPDATE {memory_vitals} SET importance = CASE WHEN importance = ? THEN ? ELSE importance END,
    access_count = max(0, access_count - ?)
  WHERE memory_id = ? AND status <> 'erased'`;

/** True when the ids are in order and each once, as the decider writes them (so no memory appears twice). */
export function idsAscending(decays: readonly { readonly memoryId: string }[]): boolean {
  for (let i = 1; i < decays.length; i += 1) if (!((decays[i - 1] as Decay).memoryId < (decays[i] as Decay).memoryId)) return false;
  return true;
}

/**
 * Applies one batch of recorded decays to the vitals rows. The importance moves only from the value
 * the tick decided on, so a change that landed in between is kept; the access count loses what the
 * tick took, never more than it has. A joined UPDATE changes each row once, so a batch not in id
 * order (the decider never writes one; it might name a memory twice) is applied one decay at a time, in order.
 */
export function applyDecayBatch(tx: ProjectionTx, decays: readonly Decay[]): void {
  if (!idsAscending(decays)) {
    for (const d of decays) tx.run(oneDecay, d.from, d.to, d.accessFrom - d.accessTo, d.memoryId);
    return;
  }
  const params = new Array<unknown>(rows * 4);
  for (let start = 0; start < decays.length; start += rows) {
    let at = 0;
    for (let i = start; i < start + rows; i += 1) {
      const d = decays[i];
      params[at++] = d ? d.from : null;
      params[at++] = d ? d.to : null;
      params[at++] = d ? d.accessFrom - d.accessTo : null;
      params[at++] = d ? d.memoryId : null;
    }
    tx.run(manyDecays, ...params);
  }
}
