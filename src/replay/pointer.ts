import { ValidationError } from '../events/errors.js';
import type { EventLog } from '../events/log/event-log.js';

/** A point of the log's history: a global position or a moment. */
export type Pointer = { readonly position: bigint } | { readonly time: Date };

/** The point a pointer names: the position and the time the view is "now" at. */
export interface ResolvedPointer {
  readonly position: bigint;
  /** For a time, the time itself; for a position, when its event occurred (the epoch for 0). */
  readonly asOf: string;
}

/** `123` is a position; anything else must be an ISO-8601 time with a zone. */
export function parsePointer(text: string, field = 'at'): Pointer {
  if (/^\d+$/.test(text)) return { position: BigInt(text) };
  const ms = /^\d{4}-\d{2}-\d{2}T[\d:.]+(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(ms)) throw new ValidationError(field, `must be a log position or an ISO-8601 time with a zone, got "${text}"`);
  return { time: new Date(ms) };
}

const pageSize = 1000;

/**
 * Resolves a pointer against the log. A time becomes the last position whose event occurred at or
 * before it, read backwards from the head page by page, so recent times are cheap.
 */
export async function resolvePointer(log: EventLog, pointer: Pointer, field = 'at'): Promise<ResolvedPointer> {
  const head = await log.headPosition();
  if ('position' in pointer) {
    if (pointer.position > head) throw new ValidationError(field, `position ${pointer.position} is past the log's head ${head}`);
    if (pointer.position === 0n) return { position: 0n, asOf: new Date(0).toISOString() };
    const [event] = await log.readAll({ from: pointer.position, to: pointer.position, limit: 1 }).catch((error: unknown) => {
      // A log with gaps between positions (EventStoreDB) knows only the positions of its events.
      throw error instanceof ValidationError ? new ValidationError(field, error.detail) : error;
    });
    return { position: pointer.position, asOf: event?.metadata.occurredAt ?? new Date(0).toISOString() };
  }
  const at = pointer.time.getTime();
  let before: bigint | undefined;
  for (;;) {
    const page = await log.readBackward({ ...(before === undefined ? {} : { before }), limit: pageSize });
    const hit = [...page].reverse().find((e) => Date.parse(e.metadata.occurredAt) <= at);
    if (hit) return { position: hit.globalPosition, asOf: pointer.time.toISOString() };
    if (page.length < pageSize || !page[0]) return { position: 0n, asOf: pointer.time.toISOString() };
    before = page[0].globalPosition;
  }
}
