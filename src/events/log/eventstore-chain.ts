import { chainLink } from './hash-chain.js';

/**
 * The hash chains of the shared log (ADR 27). A position is only known once the server has
 * written an event, and many nodes write, so each event's link chains the one before it in its
 * own stream (the append names that event's revision as its expected revision, so two writers
 * cannot fork a stream): ADR 16's link with the position left at 0.
 */
export function streamLink(
  previous: string,
  streamId: string,
  revision: bigint,
  event: { readonly type: string; readonly schemaVersion: number; readonly eventId: string },
  data: string,
  metadata: string,
): string {
  return chainLink(previous, 0, streamId, Number(revision), event.eventId, event.type, event.schemaVersion, data, metadata);
}

/**
 * The log's digest over $all, computed by whoever reads it in order: ADR 16's link over each
 * event's position, stream, revision, id, type and version, with its stream link standing for its
 * data and metadata. Anchors record it at a position; `verify --anchor` compares it.
 */
export function allLink(
  previous: string,
  position: bigint,
  streamId: string,
  revision: bigint,
  event: { readonly type: string; readonly schemaVersion: number; readonly eventId: string },
  link: string,
): string {
  return chainLink(previous, Number(position), streamId, Number(revision), event.eventId, event.type, event.schemaVersion, link, '');
}

export interface StreamHead {
  readonly revision: bigint;
  readonly link: string;
}

/** The last revision and link of streams this node has read or written; a stale one costs a retry. */
export function createStreamHeads(limit = 100_000) {
  const heads = new Map<string, StreamHead>();
  return {
    get: (streamId: string): StreamHead | undefined => heads.get(streamId),
    set(streamId: string, head: StreamHead): void {
      heads.delete(streamId);
      heads.set(streamId, head);
      // Oldest first out: Map keeps insertion order.
      if (heads.size > limit) heads.delete(heads.keys().next().value as string);
    },
    forget: (streamId: string): boolean => heads.delete(streamId),
  };
}
