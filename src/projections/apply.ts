import type { RecordedEvent } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { withoutFsync } from './durability.js';
import type { Generation, GenerationStore } from './generations.js';
import type { Projection } from './projection.js';
import { bindGeneration } from './tx.js';

/** Applies pages of the log to one generation; rows and checkpoint commit in one transaction, not waiting for fsync. */
export function createGenerationWriter(db: SqliteDatabase, store: GenerationStore, projection: Projection, gen: Generation) {
  const tx = bindGeneration(db, projection, gen.generation);
  const handles = new Set<string>(projection.handles);
  const applyPage = db.transaction((page: readonly RecordedEvent[]): bigint | null => {
    const current = store.get(gen.name, gen.generation);
    // A generation retired by a rebuild's switch (or failed) takes no more writes.
    if (!current || current.status === 'retired' || current.status === 'failed') return null;
    const checkpoint = current.checkpoint;
    // A page may overlap what was applied already (two catch-ups racing): skip, never apply twice.
    const fresh = page.filter((e) => e.globalPosition > checkpoint);
    const last = fresh.at(-1);
    if (!last) return checkpoint;
    const handled = fresh.filter((e) => handles.has(e.type));
    if (handled.length > 0) projection.apply(handled, tx);
    store.setCheckpoint(gen, last.globalPosition);
    return last.globalPosition;
  });
  const init = db.transaction(() => projection.init(tx));
  return {
    generation: gen.generation,
    init: (): void => init(),
    applyPage: (page: readonly RecordedEvent[]) => withoutFsync(db, () => applyPage.immediate(page)),
    checkpoint: () => store.get(gen.name, gen.generation)?.checkpoint ?? 0n,
  };
}

export type GenerationWriter = ReturnType<typeof createGenerationWriter>;
