import type { MemoryEngine } from '../../engine/engine.js';

/** How far a long operation is, read by polling the engine's own status; null when it cannot tell. */
export type ProgressSource = () => { readonly done: number; readonly total: number } | null;

/** Shadow rebuilds under way (projections and vector indexes), as positions replayed out of `head` each. */
export function rebuildProgress(engine: MemoryEngine, head: bigint): ProgressSource {
  return () => {
    const s = engine.indexes.runner.status();
    const building = [
      ...s.flatMap((p) => (p.building ? [p.building.checkpoint] : [])),
      ...[engine.indexes.vectors.status(), engine.indexes.graphVectors.status()].flatMap((v) => (v.building ? [v.building.checkpoint] : [])),
    ];
    const maintenance = engine.maintenance.status().progress;
    if (building.length === 0) return maintenance;
    return { done: building.reduce((a, b) => a + Number(b), 0), total: Number(head) * building.length };
  };
}

/** An import: the memories the documents read model has gained, out of the new rows its preview counts. */
export function importProgress(engine: MemoryEngine, total: number): ProgressSource {
  const before = engine.documents.count();
  return () => ({ done: engine.documents.count() - before, total });
}

/** A source that fails reads as "cannot tell" (a read model closed under it, a rebuild swapping tables). */
export function safely(source: ProgressSource): ReturnType<ProgressSource> {
  try {
    return source();
  } catch {
    return null;
  }
}
