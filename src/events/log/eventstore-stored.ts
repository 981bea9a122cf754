import { createHash } from 'node:crypto';
import type { DomainEvent } from '../catalog.js';
import { CorruptEventError } from '../errors.js';
import type { EsdbRecord } from './eventstore-client.js';
import type { RecordedEvent } from './event-log.js';
import type { Keystore } from './sealing/keystore.js';
import { decodeParsedEvent } from './validate.js';

/**
 * An engine event as EventStoreDB stores it (ADR 27): the event type as the record's type, the
 * (sealed) data as JSON, and as metadata the schema version, the event's link in its stream's
 * hash chain and the domain metadata.
 */
export interface StoredMetadata {
  readonly schemaVersion: number;
  readonly link: string;
  readonly metadata: Record<string, unknown>;
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * EventStoreDB wants a UUID per event: the event id itself when it is one, else a name-based UUID
 * from its sha256 (version nibble 8), so a retried append carries the same id and the server can
 * recognise it as a repeat.
 */
function uuidOf(eventId: string): string {
  if (uuidPattern.test(eventId)) return eventId.toLowerCase();
  const hex = createHash('sha256').update(eventId).digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The record to append for one validated event, whose data column (sealed) and link are made. */
export function toEsdbEvent(event: DomainEvent, data: string, link: string) {
  const metadata: StoredMetadata = { schemaVersion: event.schemaVersion, link, metadata: event.metadata };
  return {
    id: uuidOf(event.metadata.eventId),
    contentType: 'application/json' as const,
    type: event.type,
    data: JSON.parse(data) as Record<string, unknown>,
    // A plain Uint8Array: the client passes it through as bytes instead of serialising it again.
    metadata: new Uint8Array(Buffer.from(JSON.stringify(metadata), 'utf8')),
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The stored parts of a record of ours, or a CorruptEventError naming its position. */
export function storedParts(record: EsdbRecord): { data: Record<string, unknown>; meta: StoredMetadata } {
  const meta = record.metadata;
  if (!isObject(record.data)) throw new CorruptEventError(record.position, 'data is not a JSON object');
  if (!isObject(meta) || typeof meta.schemaVersion !== 'number' || typeof meta.link !== 'string' || !isObject(meta.metadata)) {
    throw new CorruptEventError(record.position, 'metadata is not {schemaVersion, link, metadata}');
  }
  return { data: record.data, meta: meta as unknown as StoredMetadata };
}

/** A record of an engine stream read as the domain event it stores, validated like every read. */
export function decodeRecord(record: EsdbRecord, streamId: string, keystore: Keystore | null): RecordedEvent {
  const { data, meta } = storedParts(record);
  const event = decodeParsedEvent({ type: record.type, schemaVersion: meta.schemaVersion, data, metadata: meta.metadata }, record.position, keystore);
  return { ...event, streamId, streamRevision: record.revision, globalPosition: record.position };
}

/** The key ids a stored record's sealed envelope names (none when it is not sealed). */
export function sealedKeyIds(record: EsdbRecord): number[] {
  const envelope = isObject(record.data) ? record.data['$sealed'] : undefined;
  const k = isObject(envelope) ? envelope.k : undefined;
  return Array.isArray(k) ? k.filter((id): id is number => Number.isSafeInteger(id)) : [];
}
