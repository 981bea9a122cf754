import { BACKWARDS, END, NO_STREAM, type EventStoreDBClient } from '@eventstore/db-client';
import type { DomainEvent } from '../catalog.js';
import { ConcurrencyError, ValidationError } from '../errors.js';
import { streams } from '../streams.js';
import { createStreamHeads, streamLink, type StreamHead } from './eventstore-chain.js';
import { actualOf, collect, isStreamDeleted, isWrongExpectedVersion, type EsdbRecord } from './eventstore-client.js';
import type { EventStoreKeyring } from './eventstore-keyring.js';
import type { EventStoreNames } from './eventstore-names.js';
import { sealedKeyIds, storedParts, toEsdbEvent } from './eventstore-stored.js';
import { describeRevision, type AppendResult, type ExpectedRevision } from './event-log.js';
import { genesisHash } from './hash-chain.js';
import { createSealingCodec } from './sealing/codec.js';
import { validateNewEvent } from './validate.js';

/** Appends that lost a race on 'any' or 'stream_exists' (the stream's head moved) are tried again. */
const attempts = 8;

/**
 * The write side of the shared log (ADR 27): validate, load the keys, seal each event in its own
 * box (positions are the server's to give, so no grouped boxes), chain each event to the last one
 * of its stream, and append with that event's revision as the expected revision, so a conflict is
 * the server's WrongExpectedVersion, mapped to the one ConcurrencyError.
 */
export function createEventStoreAppender(client: EventStoreDBClient, names: EventStoreNames, keyring: EventStoreKeyring) {
  const heads = createStreamHeads();
  const codec = createSealingCodec(keyring);

  /** Remembers what a read of a stream tells the appender: its head and its memory's keys. */
  const noteStream = (streamId: string, records: readonly EsdbRecord[]): void => {
    const last = records.at(-1);
    if (last) heads.set(streamId, { revision: last.revision, link: storedParts(last).meta.link });
    const written = [...records].reverse().find((r) => r.type === 'MemoryWritten');
    if (written) keyring.noteMemoryKeys(streamId, sealedKeyIds(written));
  };

  const readLast = async (streamId: string): Promise<StreamHead | undefined> => {
    const [last] = await collect(client.readStream(names.stream(streamId), { direction: BACKWARDS, fromRevision: END, maxCount: 1 }));
    if (!last) return undefined;
    const head = { revision: last.revision, link: storedParts(last).meta.link };
    heads.set(streamId, head);
    return head;
  };

  /** The head the new events chain from, or the conflict the expectation already implies. */
  const headFor = async (streamId: string, expected: ExpectedRevision): Promise<StreamHead | undefined> => {
    const cached = heads.get(streamId);
    if (expected === 'no_stream') {
      if (cached) throw new ConcurrencyError(streamId, 'no_stream', cached.revision.toString());
      return undefined;
    }
    if (cached && (expected === 'any' || expected === 'stream_exists' || cached.revision === expected)) return cached;
    const head = await readLast(streamId);
    if (head === undefined && expected !== 'any') throw new ConcurrencyError(streamId, describeRevision(expected), 'no_stream');
    if (head !== undefined && typeof expected === 'bigint' && head.revision !== expected) {
      throw new ConcurrencyError(streamId, expected.toString(), head.revision.toString());
    }
    return head;
  };

  const memoryKeysOf = async (memoryId: string): Promise<number[] | undefined> => {
    const streamId = streams.memory(memoryId);
    const known = keyring.memoryKeyIds(streamId);
    if (known) return known;
    noteStream(streamId, await collect(client.readStream(names.stream(streamId))));
    return keyring.memoryKeyIds(streamId);
  };

  const append = async (streamId: string, events: readonly DomainEvent[], expected: ExpectedRevision = 'any'): Promise<AppendResult> => {
    if (streamId.length === 0) throw new ValidationError('streamId', 'must not be empty');
    if (events.length === 0) throw new ValidationError('events', 'at least one event is required');
    const valid = events.map(validateNewEvent);
    await keyring.prepareAppend(valid, memoryKeysOf);
    const encoder = codec.encoder();
    const prepared = valid.map((e) => encoder.prepare(e.type, e.data as Record<string, unknown>, e.metadata.eventId));
    const datas = prepared.map((p) => encoder.seal([p], 0)[0] as string);
    const metas = valid.map((e) => JSON.stringify(e.metadata));
    for (let attempt = 1; ; attempt += 1) {
      const head = await headFor(streamId, expected);
      let link = head?.link ?? genesisHash;
      let revision = head?.revision ?? -1n;
      const records = valid.map((e, i) => {
        revision += 1n;
        link = streamLink(link, streamId, revision, { ...e, eventId: e.metadata.eventId }, datas[i] as string, metas[i] as string);
        return toEsdbEvent(e, datas[i] as string, link);
      });
      try {
        const result = await client.appendToStream(names.stream(streamId), records, { expectedRevision: head?.revision ?? NO_STREAM });
        heads.set(streamId, { revision: result.nextExpectedRevision, link });
        valid.forEach((e, i) => {
          if (e.type === 'MemoryWritten') keyring.noteMemoryKeys(streams.memory(e.data.memoryId), sealedKeyIds({ data: JSON.parse(datas[i] as string) } as EsdbRecord));
        });
        if (!result.position) throw new Error(`EventStoreDB gave no position for an append to ${streamId}`);
        return { nextExpectedRevision: result.nextExpectedRevision, lastPosition: result.position.commit };
      } catch (error) {
        if (isWrongExpectedVersion(error)) {
          heads.forget(streamId);
          if ((expected === 'any' || expected === 'stream_exists') && attempt < attempts) continue;
          throw new ConcurrencyError(streamId, describeRevision(expected), actualOf(error));
        }
        if (isStreamDeleted(error)) throw new ValidationError('streamId', `${streamId} was deleted in EventStoreDB and takes no more events`);
        throw error;
      }
    }
  };

  return { append, noteStream };
}
