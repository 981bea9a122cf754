import type { EventLog } from '../events/log/event-log.js';
import type { Projection } from '../projections/projection.js';
import type { VectorSource } from '../projections/vectors/apply.js';
import { createReadModels, type ReadModels } from '../queries/read-models.js';
import { resolvePointer, type Pointer, type ResolvedPointer } from './pointer.js';
import { projectionsAt, type StateAt } from './state-at.js';
import { graphEntryVectorFeed } from '../projections/vectors/feed.js';
import { vectorsAt, type VectorsAt } from './vectors-at.js';

export interface TimeTravelDeps {
  readonly log: EventLog;
  readonly projections: readonly Projection[];
  /** The embedding cache under today's provider: the view never embeds a stored text. */
  readonly vectorSource: VectorSource;
  readonly pageSize?: number;
}

/** A read-only view of every read model as it was at one point of the log. */
export interface TimeTravelView extends ResolvedPointer, ReadModels {
  readonly state: StateAt;
  readonly vectors: VectorsAt;
  readonly graphVectors: VectorsAt;
  close(): void;
}

/**
 * Replays the log's first `position` events into a temporary in-memory SQLite store and an
 * in-memory vector index. Nothing is appended and the live store is not touched; `close` frees it.
 */
export async function openTimeTravelView(deps: TimeTravelDeps, pointer: Pointer, field = 'at'): Promise<TimeTravelView> {
  const resolved = await resolvePointer(deps.log, pointer, field);
  const state = await projectionsAt(deps.log, deps.projections, resolved.position);
  try {
    const vectors = await vectorsAt(deps.log, deps.vectorSource, resolved.position, deps.pageSize);
    const graphVectors = await vectorsAt(deps.log, deps.vectorSource, resolved.position, deps.pageSize, graphEntryVectorFeed);
    return {
      ...resolved,
      ...createReadModels(state.db, (name, table) => state.runner.liveTable(name, table)),
      state,
      vectors,
      graphVectors,
      close: () => state.close(),
    };
  } catch (error) {
    state.close();
    throw error;
  }
}
