import type { RecordedEvent } from '../events/log/event-log.js';
import type { ProjectionFailure } from './generations.js';

/** What a replay feeds page by page: a projection's generation, or a vector index's shadow. */
export interface PageWriter {
  /** The last log position applied. */
  checkpoint(): bigint;
  /** Applies the page's events after the checkpoint; the new checkpoint, or null when it takes no more pages. */
  applyPage(page: readonly RecordedEvent[]): bigint | null;
  /** Where it stopped for good, or null. */
  failure(): ProjectionFailure | null;
  /** Marks it stopped at an event it could not even read. */
  fail(position: bigint, error: string): void;
}
