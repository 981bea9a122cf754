import { ValidationError } from '../events/errors.js';
import type { EventLog } from '../events/log/event-log.js';
import type { Reranker } from '../queries/recall/rank.js';
import type { RecallSettings } from '../queries/recall/types.js';
import { historyOf } from '../replay/audit.js';
import { diffDocuments, type MemoryDiff } from '../replay/diff.js';
import { parsePointer, type Pointer, type ResolvedPointer } from '../replay/pointer.js';
import { openTimeTravelView, type TimeTravelView } from '../replay/time-travel.js';
import type { Environment } from './clock.js';
import type { EmbeddingCache, EmbeddingProvider } from '../providers/embeddings/index.js';
import { cacheVectorSource, engineProjections, type Indexes } from './indexes.js';
import type { RecallInput } from './inputs.js';
import { createRecall, type RecallAnswer } from './recall.js';

interface ReplayDeps {
  readonly log: EventLog;
  readonly env: Environment;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly reranker: Reranker | null;
  readonly settings?: RecallSettings;
}

/** A past state of the store: read-only, with a recall that runs as it would have run then. */
export interface PastView extends ResolvedPointer {
  readonly view: TimeTravelView;
  /** The same recall as the engine's, on the view, at `asOf`; it records no access. */
  recall(input: RecallInput): Promise<RecallAnswer>;
  close(): void;
}

const toPointer = (p: string | Pointer, field: string): Pointer => (typeof p === 'string' ? parsePointer(p, field) : p);

/** Audit trail, time travel and diff over the engine's log. */
export function createReplay(deps: ReplayDeps) {
  const open = (pointer: string | Pointer, field = 'at'): Promise<TimeTravelView> =>
    openTimeTravelView(
      { log: deps.log, projections: engineProjections, vectorSource: cacheVectorSource(deps.provider, deps.cache) },
      toPointer(pointer, field),
      field,
    );

  return {
    /** Every event that touched a memory or an atom, in log order, up to the log's head. */
    async history(id: string) {
      // Access batches and system events append without a catch-up: bring the index up first.
      await deps.indexes.runner.catchUp(['memory_events']);
      return historyOf(deps.log, deps.indexes.history, id);
    },
    /** The store as it was at a position or time; close it when done. */
    async at(pointer: string | Pointer): Promise<PastView> {
      const view = await open(pointer);
      const asOf = new Date(view.asOf);
      const { recall } = createRecall({
        indexes: view,
        provider: deps.provider,
        env: { now: () => asOf, newId: deps.env.newId },
        access: { record: () => undefined },
        reranker: deps.reranker,
        ...(deps.settings ? { settings: deps.settings } : {}),
      });
      return { position: view.position, asOf: view.asOf, view, recall, close: () => view.close() };
    },
    /** Memories added, changed, archived and forgotten between two points. */
    async diff(from: string | Pointer, to: string | Pointer): Promise<{ from: ResolvedPointer; to: ResolvedPointer } & MemoryDiff> {
      const before = await open(from, 'from');
      try {
        const after = await open(to, 'to');
        try {
          if (before.position > after.position) {
            throw new ValidationError('from', `position ${before.position} is after "to" (position ${after.position})`);
          }
          const all = { limit: null };
          const diff = diffDocuments(before.documents.list(all), after.documents.list(all));
          const point = (v: TimeTravelView): ResolvedPointer => ({ position: v.position, asOf: v.asOf });
          return { from: point(before), to: point(after), ...diff };
        } finally {
          after.close();
        }
      } finally {
        before.close();
      }
    },
  };
}
