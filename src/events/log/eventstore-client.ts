import { EventStoreDBClient, StreamDeletedError, StreamNotFoundError, WrongExpectedVersionError, type ResolvedEvent } from '@eventstore/db-client';
import { ValidationError } from '../errors.js';

/** What the adapter reads of a stored event: the client's record, position included. */
export interface EsdbRecord {
  readonly streamId: string;
  readonly id: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
  /** Commit position: one per event, increasing along $all (ADR 27). */
  readonly position: bigint;
}

/** Opens a client from `esdb://host:port?tls=false` (or `esdb+discover://` for a cluster). */
export function connectEventStore(connectionString: string): EventStoreDBClient {
  if (!/^esdb(\+discover)?:\/\//.test(connectionString)) {
    throw new ValidationError('log.eventstoredb.connectionString', `must start with esdb:// or esdb+discover://, got "${connectionString}"`);
  }
  try {
    return EventStoreDBClient.connectionString(connectionString);
  } catch (error) {
    throw new ValidationError('log.eventstoredb.connectionString', (error as Error).message);
  }
}

/** The parts of a resolved event the adapter uses, or null for a link without its event. */
export function toRecord(resolved: ResolvedEvent): EsdbRecord | null {
  const e = resolved.event;
  if (!e) return null;
  return { streamId: e.streamId, id: e.id, revision: e.revision, type: e.type, data: e.data, metadata: e.metadata, position: e.position?.commit ?? resolved.commitPosition ?? -1n };
}

/** The client's records of a read, in order; a stream that does not exist reads as empty. */
export async function collect(read: AsyncIterable<ResolvedEvent>): Promise<EsdbRecord[]> {
  const out: EsdbRecord[] = [];
  try {
    for await (const resolved of read) {
      const record = toRecord(resolved);
      if (record) out.push(record);
    }
  } catch (error) {
    if (error instanceof StreamNotFoundError) return out;
    throw error;
  }
  return out;
}

/** The server refused a read of $all from a position that is not the start of a record. */
export const isInvalidPosition = (error: unknown): boolean => error instanceof Error && /invalid position/i.test(error.message);

export const isWrongExpectedVersion = (error: unknown): error is WrongExpectedVersionError => error instanceof WrongExpectedVersionError;

export const isStreamDeleted = (error: unknown): boolean => error instanceof StreamDeletedError;

/** The stream's current revision as the conflict error names it. */
export const actualOf = (error: WrongExpectedVersionError): string =>
  typeof error.actualVersion === 'bigint' ? error.actualVersion.toString() : String(error.actualVersion ?? 'no_stream');

/** A valid position to read or subscribe from: the client's {commit, prepare}, commit and prepare alike. */
export const at = (position: bigint) => ({ commit: position, prepare: position });
