import { checkEventCeilings } from '../bounds.js';
import { currentVersions, type DomainEvent } from '../catalog.js';
import { parseEvent } from '../event-parser.js';
import { CorruptEventError, ValidationError } from '../errors.js';
import { upcast } from '../upcasters.js';
import { openData } from './sealing/codec.js';
import type { GroupOpener } from './sealing/group.js';
import type { Keystore } from './sealing/keystore.js';

/** Checks an event before it is written (schema, then the log's size ceilings); a failure names the field and nothing is appended. */
export function validateNewEvent(event: unknown, index: number): DomainEvent {
  const size = checkEventCeilings(event, index);
  const valid = parseEvent(event, size, `events.${index}`);
  if (valid.metadata.erased !== undefined) throw new ValidationError(`events.${index}.metadata.erased`, 'is set by the log on read, never written');
  return valid;
}

export interface StoredRow {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: string;
  readonly metadata: string;
}

/** A stored event whose data and metadata are already parsed JSON (the EventStoreDB client parses them). */
export interface ParsedRow {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: Record<string, unknown>;
  readonly metadata: Record<string, unknown>;
}

/**
 * Reads a stored row as a current event: parse, open its sealed content (ADR 19), upcast,
 * validate; any failure names the position. Content whose key is gone reads as erased and the
 * event's metadata says `erased: true`; without a keystore every sealed field reads as erased.
 * A grouped box is opened through `groups`, which holds (or fetches) the group's other rows.
 */
export function decodeStoredEvent(row: StoredRow, position: bigint, keystore: Keystore | null = null, groups?: GroupOpener): DomainEvent {
  let parsed: { data: Record<string, unknown>; metadata: Record<string, unknown> };
  try {
    parsed = groups
      ? groups.parsed(Number(position), row)
      : { data: JSON.parse(row.data) as Record<string, unknown>, metadata: JSON.parse(row.metadata) as Record<string, unknown> };
  } catch (error) {
    throw new CorruptEventError(position, error instanceof Error ? error.message : String(error));
  }
  return decodeParsedEvent({ type: row.type, schemaVersion: row.schemaVersion, ...parsed }, position, keystore, groups, row.data.length);
}

/** decodeStoredEvent for a row whose JSON is parsed already. */
export function decodeParsedEvent(row: ParsedRow, position: bigint, keystore: Keystore | null = null, groups?: GroupOpener, size = 0): DomainEvent {
  try {
    const group = groups ? { position: Number(position), opener: groups } : undefined;
    const { metadata } = row;
    const opened = openData(row.type, row.data, String(metadata.eventId), keystore, group);
    const stored = { type: row.type, schemaVersion: row.schemaVersion, data: opened.data as unknown };
    const current = currentVersions.get(row.type) === row.schemaVersion ? stored : upcast(stored);
    const event = { ...current, metadata: opened.erased ? { ...metadata, erased: true } : metadata };
    return parseEvent(event, size);
  } catch (error) {
    throw new CorruptEventError(position, error instanceof Error ? error.message : String(error));
  }
}
