// TEST STAND-IN for an EventStoreDB server's storage: in memory, one process, no cluster, no
// durability. It exists only so CI can drive the real @eventstore/db-client over real gRPC; it is
// never a product log (see docs/adr/0027-eventstoredb-log.md for what it does and does not prove).

/** What the client sends for an append or delete: any, no stream, stream exists, or an exact revision. */
export type Expected = 'any' | 'no_stream' | 'stream_exists' | bigint;

/** One record of the stand-in's transaction log, as the server would report it. */
export interface StoredRecord {
  /** Byte offset of the record in the log: the commit position (and prepare position) of the event. */
  readonly position: bigint;
  /** Position of the first record of the same append: what older servers report as prepare position. */
  readonly transaction: bigint;
  readonly streamId: string;
  readonly revision: bigint;
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  data: Uint8Array;
  metadata: Uint8Array;
  /** .NET ticks since the Unix epoch, as the server's `created` metadata. */
  readonly created: bigint;
  /** Date.now() when written, for the simulated replication lag. */
  readonly writtenAt: number;
}

export interface ProposedEvent {
  readonly id: string;
  readonly type: string;
  readonly contentType: string;
  readonly data: Uint8Array;
  readonly metadata: Uint8Array;
}

interface StreamState {
  readonly records: StoredRecord[];
  tombstoned: boolean;
  /** Soft delete: revisions below this read as gone. */
  truncateBefore: bigint;
}

/** The stream's revision as an append sees it: undefined when there is no stream. */
export type Current = bigint | undefined;

export class WrongExpectedVersion extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: Expected,
    readonly current: Current,
  ) {
    super(`WrongExpectedVersion on ${streamId}: expected ${String(expected)}, current ${String(current)}`);
  }
}

export class StreamDeleted extends Error {
  constructor(readonly streamId: string) {
    super(`Event stream '${streamId}' is deleted.`);
  }
}

export class InvalidPosition extends Error {
  constructor() {
    super('Trying to read from an invalid position.');
  }
}

/** The revision a tombstone takes, as the server writes it (EventNumber.DeletedStream). */
export const deletedStreamRevision = 9223372036854775807n;
const recordOverhead = 96n;
const encoder = new TextEncoder();

export interface StandInStoreOptions {
  /** After every this many appends a `$statsCollected` event lands in a system stream, as a server's stats would. */
  readonly systemNoiseEvery?: number;
  /**
   * Reads of $all (and subscriptions) see a record only this long after it was written, as reads
   * served by a follower of a cluster would; appends and stream reads stay on the leader.
   */
  readonly readLagMs?: number;
}

/** The stand-in's storage: positions are byte offsets with gaps, like a real transaction file. */
export function createStandInStore(options: StandInStoreOptions = {}) {
  const log: StoredRecord[] = [];
  const byPosition = new Map<bigint, StoredRecord>();
  const streams = new Map<string, StreamState>();
  const listeners = new Set<() => void>();
  let next = 0n;
  let appends = 0;

  const stream = (id: string): StreamState => {
    let found = streams.get(id);
    if (!found) streams.set(id, (found = { records: [], tombstoned: false, truncateBefore: 0n }));
    return found;
  };
  const current = (state: StreamState | undefined): Current => {
    const last = state?.records.at(-1);
    return last === undefined ? undefined : last.revision;
  };
  const check = (streamId: string, expected: Expected): StreamState => {
    const state = streams.get(streamId);
    if (state?.tombstoned) throw new StreamDeleted(streamId);
    const now = current(state);
    const ok =
      expected === 'any' ||
      (expected === 'no_stream' && now === undefined) ||
      (expected === 'stream_exists' && now !== undefined) ||
      (typeof expected === 'bigint' && now === expected);
    if (!ok) throw new WrongExpectedVersion(streamId, expected, now);
    return stream(streamId);
  };
  const write = (state: StreamState, streamId: string, events: readonly ProposedEvent[], revisionOf: (i: number) => bigint): StoredRecord[] => {
    const transaction = next;
    const writtenAt = Date.now();
    const created = BigInt(writtenAt) * 10_000n;
    const written = events.map((event, i) => {
      const record: StoredRecord = { ...event, position: next, transaction, streamId, revision: revisionOf(i), created, writtenAt };
      next += recordOverhead + BigInt(encoder.encode(streamId).length + encoder.encode(event.type).length + event.data.length + event.metadata.length);
      log.push(record);
      byPosition.set(record.position, record);
      state.records.push(record);
      return record;
    });
    return written;
  };
  const firstAtOrAfter = (position: bigint): number => {
    let low = 0;
    let high = log.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((log[mid] as StoredRecord).position < position) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const notify = (): void => [...listeners].forEach((wake) => wake());
  const systemEvent = (streamId: string, type: string, body: unknown): void => {
    const data = encoder.encode(JSON.stringify(body));
    write(stream(streamId), streamId, [{ id: crypto.randomUUID(), type, contentType: 'application/json', data, metadata: new Uint8Array() }], () =>
      BigInt(stream(streamId).records.length),
    );
  };
  systemEvent('$settings', 'update-default-acl', { $userStreamAcl: { $r: '$all' } });

  return {
    /** Appends all events or none after checking the expected revision; returns the records written. */
    append(streamId: string, expected: Expected, events: readonly ProposedEvent[]): { records: StoredRecord[]; current: Current } {
      const state = check(streamId, expected);
      if (events.length === 0) return { records: [], current: current(state) };
      const base = (current(state) ?? -1n) + 1n;
      const records = write(state, streamId, events, (i) => base + BigInt(i));
      appends += 1;
      if (options.systemNoiseEvery && appends % options.systemNoiseEvery === 0) {
        systemEvent('$stats-127.0.0.1:2113', '$statsCollected', { 'proc-id': process.pid, appends });
      }
      notify();
      return { records, current: current(state) };
    },
    /** Soft delete: the stream reads as not found; its records stay in $all until a scavenge. */
    softDelete(streamId: string, expected: Expected): StoredRecord {
      const state = check(streamId, expected);
      state.truncateBefore = (current(state) ?? -1n) + 1n;
      systemEvent(`$$${streamId}`, '$metadata', { $tb: Number(state.truncateBefore) });
      notify();
      return log.at(-1) as StoredRecord;
    },
    /** Hard delete: a tombstone record; the stream can never be read or written again. */
    tombstone(streamId: string, expected: Expected): StoredRecord {
      const state = check(streamId, expected);
      const [record] = write(state, streamId, [{ id: crypto.randomUUID(), type: '$streamDeleted', contentType: 'application/octet-stream', data: new Uint8Array(), metadata: new Uint8Array() }], () => deletedStreamRevision);
      state.tombstoned = true;
      notify();
      return record as StoredRecord;
    },
    /** The stream's readable events, or 'not-found' / 'deleted'. */
    streamRecords(streamId: string): StoredRecord[] | 'not-found' | 'deleted' {
      const state = streams.get(streamId);
      if (state?.tombstoned) return 'deleted';
      const live = (state?.records ?? []).filter((r) => r.revision >= (state?.truncateBefore ?? 0n));
      return live.length === 0 ? 'not-found' : live;
    },
    /** Index into the log of the record at `position` (or the end); throws for a position inside a record. */
    indexAt(position: bigint): number {
      if (position < next && !byPosition.has(position)) throw new InvalidPosition();
      return firstAtOrAfter(position);
    },
    /** Index of the first record after `position`, whatever `position` is. */
    indexAfter: (position: bigint): number => firstAtOrAfter(position + 1n),
    records: (): readonly StoredRecord[] => log,
    /** The records a read of $all sees now (all of them unless a replication lag is simulated). */
    visibleRecords(): readonly StoredRecord[] {
      const lag = options.readLagMs ?? 0;
      if (lag === 0) return log;
      const cutoff = Date.now() - lag;
      let end = log.length;
      while (end > 0 && (log[end - 1] as StoredRecord).writtenAt > cutoff) end -= 1;
      return end === log.length ? log : log.slice(0, end);
    },
    readLagMs: options.readLagMs ?? 0,
    /** The position the next record will take. */
    end: (): bigint => next,
    onAppend(wake: () => void): () => void {
      listeners.add(wake);
      return () => listeners.delete(wake);
    },
    /** Removes what deletes left behind (a scavenge): events of tombstoned and truncated streams; tombstones stay. */
    scavenge(): number {
      const gone = new Set<StoredRecord>();
      for (const state of streams.values()) {
        for (const r of state.records) if ((state.tombstoned && r.type !== '$streamDeleted') || r.revision < state.truncateBefore) gone.add(r);
      }
      for (const r of gone) byPosition.delete(r.position);
      const kept = log.filter((r) => !gone.has(r));
      log.splice(0, log.length, ...kept);
      for (const state of streams.values()) state.records.splice(0, state.records.length, ...state.records.filter((r) => !gone.has(r)));
      return gone.size;
    },
    /** Test-only tampering, as someone with disk access could: find a record to change or drop. */
    recordAt: (position: bigint): StoredRecord | undefined => byPosition.get(position),
    dropRecord(position: bigint): void {
      const record = byPosition.get(position);
      if (!record) return;
      byPosition.delete(position);
      log.splice(log.indexOf(record), 1);
      const state = streams.get(record.streamId);
      state?.records.splice(state.records.indexOf(record), 1);
    },
  };
}

export type StandInStore = ReturnType<typeof createStandInStore>;
