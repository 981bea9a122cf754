import { domainEventSchema, currentVersions, type DomainEvent } from '../catalog.js';
import { CorruptEventError, parseOrThrow } from '../errors.js';
import { upcast } from '../upcasters.js';

/** Checks an event before it is written; a failure names the field and nothing is appended. */
export function validateNewEvent(event: unknown, index: number): DomainEvent {
  return parseOrThrow(domainEventSchema, event, `events.${index}`);
}

export interface StoredRow {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: string;
  readonly metadata: string;
}

/** Reads a stored row as a current event: parse, upcast, validate; any failure names the position. */
export function decodeStoredEvent(row: StoredRow, position: bigint): DomainEvent {
  try {
    const stored = { type: row.type, schemaVersion: row.schemaVersion, data: JSON.parse(row.data) as unknown };
    const current = currentVersions.get(row.type) === row.schemaVersion ? stored : upcast(stored);
    return parseOrThrow(domainEventSchema, { ...current, metadata: JSON.parse(row.metadata) as unknown });
  } catch (error) {
    throw new CorruptEventError(position, error instanceof Error ? error.message : String(error));
  }
}
