import type { Observable } from 'rxjs';
import type { DomainEvent } from '../catalog.js';

/** What a writer believes about the stream: the one type every store maps its own checks onto. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface StoredPosition {
  readonly streamId: string;
  /** 0 for a stream's first event. */
  readonly streamRevision: bigint;
  /** 1 for the log's first event; strictly increasing, no gaps in the SQLite log. */
  readonly globalPosition: bigint;
}

export type RecordedEvent<E extends DomainEvent = DomainEvent> = E & StoredPosition;

export interface AppendResult {
  readonly nextExpectedRevision: bigint;
  readonly lastPosition: bigint;
}

export interface ReadAllOptions {
  /** Inclusive; defaults to the first position. */
  readonly from?: bigint;
  /** Inclusive upper bound, for reading the log as it was at a position. */
  readonly to?: bigint;
  readonly limit?: number;
}

/** One stream's part of a multi-stream append. */
export interface StreamAppend {
  readonly streamId: string;
  readonly events: readonly DomainEvent[];
  readonly expectedRevision?: ExpectedRevision;
}

export interface AppendOptions {
  readonly expectedRevision?: ExpectedRevision;
  /**
   * Called once the events are committed and readable, before the append is durable: a catch-up
   * started then overlaps the WAL's sync (wal-sync.ts). A log that cannot tell never calls it.
   */
  readonly onCommitted?: () => void;
}

export interface EventLog {
  /** Appends all events or none, checking the stream's revision first. */
  append(streamId: string, events: readonly DomainEvent[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Appends to several streams in one transaction: every event or none, each stream's revision
   * checked. Optional: a log that cannot (EventStoreDB appends one stream at a time) leaves it out.
   */
  appendAll?(appends: readonly StreamAppend[], options?: Pick<AppendOptions, 'onCommitted'>): Promise<AppendResult[]>;
  readStream(streamId: string, options?: { readonly fromRevision?: bigint }): Promise<RecordedEvent[]>;
  /** One page of the whole log in position order; `limit` defaults to 1,000. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * The stored size (bytes) of each event `readAll` would return, without decoding any: what a
   * replay in parts sizes its reads by (issue 17). Optional: a log that cannot tell leaves it out.
   */
  storedSizes?(options?: ReadAllOptions): Promise<number[]>;
  /**
   * The last `limit` events (default 1,000) before position `before` (exclusive; default: past the
   * head), in position order. For walking back from the head where positions have gaps (ADR 27).
   */
  readBackward(options?: { readonly before?: bigint; readonly limit?: number }): Promise<RecordedEvent[]>;
  /** Position of the last event, 0 when the log is empty. */
  headPosition(): Promise<bigint>;
  /** Every event from `from` on: the stored ones first, then live ones as they are appended. */
  subscribe(options?: { readonly from?: bigint }): Observable<RecordedEvent>;
  close(): Promise<void>;
}

export function describeRevision(revision: ExpectedRevision | bigint | undefined): string {
  if (revision === undefined) return 'no_stream';
  return typeof revision === 'bigint' ? revision.toString() : revision;
}
