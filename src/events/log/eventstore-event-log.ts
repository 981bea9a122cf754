import { START } from '@eventstore/db-client';
import { createEventStoreAppender } from './eventstore-append.js';
import { collect, connectEventStore } from './eventstore-client.js';
import { createEventStoreErasure } from './eventstore-erasure.js';
import { createEventStoreKeyring } from './eventstore-keyring.js';
import { eventStoreNames } from './eventstore-names.js';
import { createEventStoreReads } from './eventstore-reads.js';
import { eventStoreSubscription, type SubscriptionOptions } from './eventstore-subscription.js';
import { verifyEventStoreChain, writeAnchor, type AnchorReceipt } from './eventstore-verify.js';
import type { EventLog, RecordedEvent } from './event-log.js';
import type { SubjectRef } from './sealing/keystore.js';
import type { SubjectErasure } from './sealing/shred.js';
import type { AppendResult } from './event-log.js';
import type { SealedEventLog } from './sealed-log.js';
import type { ChainReport, VerifyChainOptions } from './verify-chain.js';

export interface EventStoreDbLogOptions {
  /** `esdb://host:2113?tls=false`, or `esdb+discover://...` for a cluster. */
  readonly connectionString: string;
  /** Prefix of every stream the engine writes (default `livingmemory`); one EventStoreDB can hold several stores. */
  readonly namespace?: string;
  readonly subscription?: SubscriptionOptions;
}

/** The EventLog on EventStoreDB/KurrentDB, with the sealing, erasure and chain the engine needs (ADR 27). */
export interface EventStoreDbEventLog extends EventLog {
  readonly kind: 'eventstoredb';
  readonly namespace: string;
  /** The last `limit` events before `before` (default: the head), in position order. */
  readBackward(options?: { readonly before?: bigint; readonly limit?: number }): Promise<RecordedEvent[]>;
  /** Walks $all: every stream's chain, the log's digest, and every anchor (ADR 27). */
  verifyChain(options?: VerifyChainOptions): Promise<ChainReport>;
  /** Records the log's digest up to its head in the anchors stream. */
  anchor(): Promise<AnchorReceipt>;
  sealedEvents(subject: SubjectRef): Promise<RecordedEvent[]>;
  eraseSubject: SealedEventLog['eraseSubject'];
  /** Forgets keys here that a SubjectErased read elsewhere named (the engine calls it on remote erasures). */
  condemnKeys(keyIds: readonly number[]): void;
}

/**
 * Connects to EventStoreDB and finishes any erasure a stopped node left half done. Read models
 * never live here: each node keeps its own in its local SQLite file and FAISS snapshots.
 */
export async function openEventStoreDbEventLog(options: EventStoreDbLogOptions): Promise<EventStoreDbEventLog> {
  const client = connectEventStore(options.connectionString);
  const names = eventStoreNames(options.namespace ?? 'livingmemory');
  const keyring = createEventStoreKeyring(client, names);
  const reads = createEventStoreReads(client, names, keyring);
  const appender = createEventStoreAppender(client, names, keyring);
  const readStream: EventLog['readStream'] = async (streamId, opts = {}) => {
    const records = await collect(client.readStream(names.stream(streamId), { fromRevision: opts.fromRevision ?? START }));
    if (opts.fromRevision === undefined || records.length > 0) appender.noteStream(streamId, records);
    return reads.decode(records);
  };
  const append: EventLog['append'] = (streamId, events, opts = {}) => appender.append(streamId, events, opts.expectedRevision);
  const erasure = createEventStoreErasure(reads, keyring, append);
  await erasure.finishErasures(readStream);

  return {
    kind: 'eventstoredb',
    namespace: names.namespace,
    append,
    readStream,
    readAll: (opts) => reads.readAll(opts),
    readBackward: (opts) => reads.readBackward(opts),
    headPosition: () => reads.headPosition(),
    subscribe: (opts = {}) => eventStoreSubscription(client, names, reads, opts.from ?? 1n, options.subscription),
    verifyChain: (opts) => verifyEventStoreChain(client, names, reads, opts),
    anchor: () => writeAnchor(client, names, reads),
    sealedEvents: (subject) => erasure.sealedEvents(subject),
    eraseSubject: (subject, record) => erasure.eraseSubject(subject, record),
    condemnKeys: (keyIds) => keyring.condemn(keyIds),
    async close() {
      await client.dispose();
    },
  };
}
