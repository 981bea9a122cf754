import { BACKWARDS, END, START, type EventStoreDBClient } from '@eventstore/db-client';
import { ValidationError } from '../errors.js';
import { at, collect, isInvalidPosition, type EsdbRecord } from './eventstore-client.js';
import type { EventStoreKeyring } from './eventstore-keyring.js';
import type { EventStoreNames } from './eventstore-names.js';
import { decodeRecord, sealedKeyIds } from './eventstore-stored.js';
import type { ReadAllOptions, RecordedEvent } from './event-log.js';

const chunk = 512;
/** A first page just big enough for `limit` of ours (most of $all is ours), so short reads stay short. */
const firstChunk = (limit: number): number => Math.min(chunk, limit + 2);

/**
 * Reading the shared log (ADR 27). Global positions are commit positions: increasing, one per
 * event, with gaps, and the server refuses to read from a position inside a record. So a read
 * "from P" (inclusive) starts at P - 1 when that is an event (a checkpoint + 1, the usual case)
 * and skips it, else at P itself; any other P is not a position of this log. Records of other
 * applications, system records and the keys' streams are skipped, never decoded.
 */
export function createEventStoreReads(client: EventStoreDBClient, names: EventStoreNames, keyring: EventStoreKeyring) {
  const ours = (r: EsdbRecord): boolean => names.engineStream(r.streamId) !== null && !r.type.startsWith('$');
  const forward = (from: 'start' | bigint, maxCount: number) =>
    collect(client.readAll({ fromPosition: from === 'start' ? START : at(from), maxCount }));

  const firstPage = async (from: bigint, size: number, field: string): Promise<EsdbRecord[]> => {
    if (from <= 1n) return forward('start', size);
    for (const start of [from - 1n, from]) {
      try {
        return await forward(start, size);
      } catch (error) {
        if (!isInvalidPosition(error)) throw error;
      }
    }
    throw new ValidationError(field, `${from} is not the position of an event in this log`);
  };

  /** Our raw records with from <= position <= to, at most `limit`, in position order. */
  const readRecords = async (opts: ReadAllOptions = {}, field = 'from'): Promise<EsdbRecord[]> => {
    const from = opts.from ?? 1n;
    const limit = opts.limit ?? 1000;
    const out: EsdbRecord[] = [];
    if (limit <= 0) return out;
    let size = firstChunk(limit);
    let page = await firstPage(from, size, field);
    let last: bigint | undefined;
    for (;;) {
      for (const r of page) {
        if (r.position < from || (last !== undefined && r.position <= last)) continue;
        if (opts.to !== undefined && r.position > opts.to) return out;
        if (ours(r)) out.push(r);
        if (out.length === limit) return out;
      }
      const tail = page.at(-1);
      if (page.length < size || !tail) return out;
      last = tail.position;
      size = chunk;
      page = await forward(last, size);
      if (page.length === 1) return out;
    }
  };

  /** Decodes records in order, loading their keys first; a SubjectErased condemns its keys for what follows. */
  const decode = async (records: readonly EsdbRecord[]): Promise<RecordedEvent[]> => {
    await keyring.loadKeys(records.flatMap(sealedKeyIds));
    return records.map((r) => {
      const event = decodeRecord(r, names.engineStream(r.streamId) as string, keyring);
      if (event.type === 'SubjectErased') keyring.condemn(event.data.keyIds);
      return event;
    });
  };

  /** Our records before `before` (default: the end), newest first, at most `limit`. */
  const readBackRecords = async (limit: number, before?: bigint): Promise<EsdbRecord[]> => {
    const out: EsdbRecord[] = [];
    let from: bigint | 'end' = before ?? 'end';
    let size = firstChunk(limit);
    while (out.length < limit) {
      let page: EsdbRecord[];
      try {
        page = await collect(client.readAll({ direction: BACKWARDS, fromPosition: from === 'end' ? END : at(from), maxCount: size }));
      } catch (error) {
        if (isInvalidPosition(error)) throw new ValidationError('before', `${String(from)} is not the position of an event in this log`);
        throw error;
      }
      for (const r of page) {
        if (ours(r)) out.push(r);
        if (out.length === limit) return out;
      }
      if (page.length < size) return out;
      from = (page.at(-1) as EsdbRecord).position;
      size = chunk;
    }
    return out;
  };

  return {
    ours,
    readRecords,
    decode,
    readAll: async (opts?: ReadAllOptions): Promise<RecordedEvent[]> => decode(await readRecords(opts)),
    /** The last `limit` events before `before`, in position order. */
    readBackward: async (opts: { readonly before?: bigint; readonly limit?: number } = {}): Promise<RecordedEvent[]> =>
      decode((await readBackRecords(opts.limit ?? 1000, opts.before)).reverse()),
    headPosition: async (): Promise<bigint> => (await readBackRecords(1))[0]?.position ?? 0n,
    /** Walks every record of ours, page by page, for scans (erasure counts, verify). */
    async *pages(pageSize = 1000): AsyncGenerator<EsdbRecord[]> {
      let from = 1n;
      for (;;) {
        const page = await readRecords({ from, limit: pageSize });
        if (page.length > 0) yield page;
        if (page.length < pageSize) return;
        from = (page.at(-1) as EsdbRecord).position + 1n;
      }
    },
  };
}

export type EventStoreReads = ReturnType<typeof createEventStoreReads>;
