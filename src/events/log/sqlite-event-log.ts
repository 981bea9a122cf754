import type { DomainEvent } from '../catalog.js';
import { ConcurrencyError, ValidationError } from '../errors.js';
import { runAppend } from './append-errors.js';
import { createWalSync, type FileSync } from './wal-sync.js';
import { streams } from '../streams.js';
import type { AppendResult, EventLog, ExpectedRevision, ReadAllOptions, RecordedEvent } from './event-log.js';
import { checkExpectedRevision } from './expected-revision.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { genesisHash } from './hash-chain.js';
import { createDecodeMemo } from './decode-memo.js';
import { createEventRowWriter, type WrittenRow } from './sqlite-event-rows.js';
import { ensureHashChain } from './sqlite-chain-schema.js';
import { createLogSchema } from './sqlite-schema.js';
import { createSealingCodec } from './sealing/codec.js';
import { createGroupOpener, type GroupOpener, type GroupRow } from './sealing/group.js';
import { createKeystore, type SubjectRef } from './sealing/keystore.js';
import { createSealedKeyIndex } from './sealing/key-index.js';
import { countSealedUnder, type SubjectErasure } from './sealing/shred.js';
import { pollingSubscription } from './subscription.js';
import { decodeStoredEvent, validateNewEvent, type StoredRow } from './validate.js';
import { verifyHashChain, type ChainReport, type VerifyChainOptions } from './verify-chain.js';

interface EventRow extends StoredRow {
  readonly globalPosition: number;
  readonly streamId: string;
  readonly streamRevision: number;
}

const columns = `global_position AS globalPosition, stream_id AS streamId, stream_revision AS streamRevision,
  type, schema_version AS schemaVersion, data, metadata`;

export interface SqliteEventLogOptions {
  /** How often a subscriber looks for appends made by other processes. */
  readonly pollIntervalMs?: number;
  /** How the WAL file is synced before an append is acknowledged (tests inject failures). */
  readonly fileSync?: FileSync;
}

/** The SQLite log also keeps a hash chain over its rows (ADR 16). */
export interface SqliteEventLog extends EventLog {
  storedSizes(options?: ReadAllOptions): Promise<number[]>;
  /** Walks the whole log in pages and reports its first broken link, if any. */
  verifyChain(options?: VerifyChainOptions): Promise<ChainReport>;
  /** Every stored event the subject's current key seals, opened (a scan of the log; for erasure). */
  sealedEvents(subject: SubjectRef): Promise<RecordedEvent[]>;
  /**
   * Crypto-shredding (ADR 19): in one transaction, calls `record` with what the subject's key sealed
   * (it may change other tables of the store in the same transaction: the embedding cache), appends
   * the event it returns at the revision it expects, then deletes the key. Its content reads as
   * erased from then on; a failure anywhere changes nothing.
   */
  eraseSubject(subject: SubjectRef, record: (erasure: SubjectErasure & { sealed(): RecordedEvent[] }) => ErasureRecord): Promise<AppendResult & SubjectErasure>;
}

/** The event an erasure appends, and where. */
export interface ErasureRecord {
  readonly streamId: string;
  readonly event: DomainEvent;
  readonly expectedRevision?: ExpectedRevision;
}

/** The embedded log over an open database; the caller owns (and closes) the database. */
export function createSqliteEventLog(db: SqliteDatabase, options: SqliteEventLogOptions = {}): SqliteEventLog {
  createLogSchema(db);
  ensureHashChain(db);
  const keystore = createKeystore(db);
  const keyIndex = createSealedKeyIndex(db);
  const codec = createSealingCodec(keystore);
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const durable = createWalSync(db, options.fileSync);
  const waiters = new Set<() => void>();
  const wakeAll = () => [...waiters].forEach((wake) => wake());
  const stmt = {
    revision: db.prepare<[string], { revision: number }>('SELECT revision FROM streams WHERE stream_id = ?'),
    createStream: db.prepare('INSERT INTO streams (stream_id, revision) VALUES (?, ?)'),
    swapRevision: db.prepare('UPDATE streams SET revision = ? WHERE stream_id = ? AND revision = ?'),
    readStream: db.prepare<[string, number], EventRow>(
      `SELECT ${columns} FROM events WHERE stream_id = ? AND stream_revision >= ? ORDER BY stream_revision`,
    ),
    readAll: db.prepare<[number, number, number], EventRow>(
      `SELECT ${columns} FROM events WHERE global_position >= ? AND global_position <= ? ORDER BY global_position LIMIT ?`,
    ),
    // octet_length reads the record header only: no overflow page of a large event is loaded.
    sizes: db.prepare<[number, number, number], number>('SELECT octet_length(data) + octet_length(metadata) FROM events WHERE global_position BETWEEN ? AND ? ORDER BY global_position LIMIT ?').pluck(),
    readBackward: db.prepare<[number, number], EventRow>(
      `SELECT ${columns} FROM events WHERE global_position < ? ORDER BY global_position DESC LIMIT ?`,
    ),
    // By the key index (ADR 32): the subject's rows, not a scan of the log.
    sealedUnder: db.prepare<[string], EventRow>(
      `SELECT ${columns} FROM events WHERE global_position IN (${keyIndex.positionsUnder}) ORDER BY global_position`,
    ),
    // The other members of grouped boxes (ADR 19), by position.
    members: db.prepare<[string], GroupRow>(
      `SELECT global_position AS globalPosition, type, data, metadata FROM events WHERE global_position IN (SELECT value FROM json_each(?))`,
    ),
    head: db.prepare<[], { head: number | null }>('SELECT max(global_position) AS head FROM events'),
    lastLink: db.prepare<[], { position: number; hash: string }>(
      'SELECT global_position AS position, hash FROM events ORDER BY global_position DESC LIMIT 1',
    ),
  };

  const writeRows = createEventRowWriter(db);

  const appendTx = db.transaction((streamId: string, events: readonly DomainEvent[], expected: ExpectedRevision, written?: WrittenRow[]) => {
    const found = stmt.revision.get(streamId)?.revision;
    const actual = found === undefined ? undefined : BigInt(found);
    checkExpectedRevision(streamId, expected, actual);
    // The head's link is read under the same write lock as the insert, so two appenders cannot fork the chain.
    const last = stmt.lastLink.get();
    const head = last?.position ?? 0;
    keyIndex.start(head);
    // Two passes: every event's clear part and plaintext, then the seals (one GCM call per key set), then the rows.
    const encoder = codec.encoder();
    const prepared = events.map((e) => encoder.prepare(e.type, e.data as Record<string, unknown>, e.metadata.eventId));
    const datas = encoder.seal(prepared, head + 1);
    const { position, revision } = writeRows({ position: head, revision: found ?? -1, link: last?.hash ?? genesisHash }, streamId, events, datas, written);
    prepared.forEach((p, i) => p.sealed && keyIndex.record(head + 1 + i, p.sealed.k));
    keyIndex.complete(position);
    if (found === undefined) stmt.createStream.run(streamId, revision);
    else if (stmt.swapRevision.run(revision, streamId, found).changes !== 1) {
      throw new ConcurrencyError(streamId, String(found), 'changed by another writer');
    }
    return { nextExpectedRevision: BigInt(revision), lastPosition: BigInt(position) };
  });

  const memo = createDecodeMemo(undefined, (keyIds) => keystore.dataKey(keyIds) !== null);
  /**
   * After a commit, the events just written are what decoding their rows gives (clear rows are the
   * JSON of the validated event, sealed ones open to it while their keys do, the decoder's test;
   * no schema transforms): the memo keeps them, and the catch-up's readers (projections, vector
   * stores) neither parse nor open them again (ADR 29, ADR 32; test/decode-memo*).
   */
  const rememberWritten = (written: readonly WrittenRow[]): void =>
    memo.rememberWritten(written.map(({ event, row }) => ({
      row, event: { ...event, streamId: row.streamId, streamRevision: BigInt(row.streamRevision), globalPosition: BigInt(row.globalPosition) },
    })));
  /**
   * Commits an append, wakes the subscribers, and resolves once the WAL is synced: the catch-up may
   * start during the sync, and what it builds on is lost, if ever, with the append (wal-sync.ts).
   */
  const commitAppend = async <T>(commit: () => T, streamId: string, written: readonly WrittenRow[] = [], onCommitted?: () => void): Promise<T> => {
    const result = runAppend(() => durable.commit(commit), streamId);
    rememberWritten(written);
    wakeAll();
    onCommitted?.();
    await durable.synced();
    return result;
  };
  const decode = (row: EventRow, groups: GroupOpener): RecordedEvent =>
    memo.decode(row, () => ({
      ...decodeStoredEvent(row, BigInt(row.globalPosition), keystore, groups),
      streamId: row.streamId,
      streamRevision: BigInt(row.streamRevision),
      globalPosition: BigInt(row.globalPosition),
    }), groups.rowAt);

  /** Decodes rows read together; a grouped box's members outside `rows` are fetched by position. */
  const decodeRows = (rows: readonly EventRow[]): RecordedEvent[] => {
    const groups = createGroupOpener((positions) => stmt.members.all(JSON.stringify(positions)));
    groups.add(rows);
    return rows.map((row) => decode(row, groups));
  };

  const range = (opts: ReadAllOptions): [number, number, number] =>
    [Number(opts.from ?? 1n), opts.to === undefined ? Number.MAX_SAFE_INTEGER : Number(opts.to), opts.limit ?? 1000];
  const readAll = (opts: ReadAllOptions = {}): RecordedEvent[] => decodeRows(stmt.readAll.all(...range(opts)));

  return {
    async append(streamId, events, opts = {}): Promise<AppendResult> {
      if (streamId.length === 0) throw new ValidationError('streamId', 'must not be empty');
      if (events.length === 0) throw new ValidationError('events', 'at least one event is required');
      const valid = events.map(validateNewEvent);
      const written: WrittenRow[] = [];
      return commitAppend(() => appendTx.immediate(streamId, valid, opts.expectedRevision ?? 'any', written), streamId, written, opts.onCommitted);
    },
    async appendAll(appends, opts = {}): Promise<AppendResult[]> {
      const valid = appends.map((a) => {
        if (a.streamId.length === 0 || a.events.length === 0) throw new ValidationError('appends', 'every part needs a stream and an event');
        return { ...a, events: a.events.map(validateNewEvent) };
      });
      // Each part is a savepoint of the one transaction: the chain and positions run on across streams.
      const written: WrittenRow[] = [];
      const all = db.transaction(() => valid.map((a) => appendTx(a.streamId, a.events, a.expectedRevision ?? 'any', written)));
      return commitAppend(() => all.immediate(), valid[0]?.streamId ?? '', written, opts.onCommitted);
    },
    async readStream(streamId, opts = {}) {
      return decodeRows(stmt.readStream.all(streamId, Number(opts.fromRevision ?? 0n)));
    },
    async readAll(opts) {
      return readAll(opts);
    },
    storedSizes: async (opts = {}) => stmt.sizes.all(...range(opts)),
    async readBackward(opts = {}) {
      return decodeRows(stmt.readBackward.all(opts.before === undefined ? Number.MAX_SAFE_INTEGER : Number(opts.before), opts.limit ?? 1000).reverse());
    },
    async headPosition() {
      return BigInt(stmt.head.get()?.head ?? 0);
    },
    subscribe(opts = {}) {
      const nextWake = () =>
        new Promise<void>((resolve) => {
          const wake = (): void => {
            clearTimeout(timeout);
            waiters.delete(wake);
            resolve();
          };
          const timeout = setTimeout(wake, pollIntervalMs).unref();
          waiters.add(wake);
        });
      return pollingSubscription({ readPage: async (from, limit) => readAll({ from, limit }), nextWake }, opts.from ?? 1n);
    },
    verifyChain: (opts) => verifyHashChain(db, opts),
    async sealedEvents(subject) {
      const keyId = keystore.currentKeyId(subject);
      return keyId === undefined ? [] : decodeRows(stmt.sealedUnder.all(JSON.stringify([keyId])));
    },
    async eraseSubject(subject, record) {
      const erase = db.transaction(() => {
        const keyId = keystore.currentKeyId(subject);
        const erasure: SubjectErasure = { subject, keyId, counts: countSealedUnder(db, keyIndex, keyId) };
        const sealed = (): RecordedEvent[] => (keyId === undefined ? [] : decodeRows(stmt.sealedUnder.all(JSON.stringify([keyId]))));
        const { streamId, event, expectedRevision } = record({ ...erasure, sealed });
        const appended = appendTx(streamId, [validateNewEvent(event, 0)], expectedRevision ?? 'any');
        keystore.shred(subject);
        return { ...appended, ...erasure };
      });
      memo.dropSealed(); // kept plaintext would fail its key test afterwards: it goes now, not when it ages out
      return commitAppend(() => erase.immediate(), streams.erasures);
    },
    async close() {
      wakeAll();
    },
  };
}

/** The log's head read inside the caller's transaction, for a rebuild's switch under the write lock. */
export function sqliteLockedHead(db: SqliteDatabase): () => bigint {
  const head = db.prepare<[], { head: number }>('SELECT coalesce(max(global_position), 0) AS head FROM events');
  return () => BigInt(head.get()?.head ?? 0);
}
