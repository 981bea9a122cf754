// TEST STAND-IN: the Streams.Read RPC of an EventStoreDB server (stream and $all reads, forwards and
// backwards, and catch-up-then-live subscriptions with filters), over the client's own protobufs.
import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { sharedPb, streamsPb, type ReadReq, type ReadResp } from './pb.js';
import { InvalidPosition, type StandInStore, type StoredRecord } from './store.js';
import { invalidPosition, streamDeleted } from './errors.js';

const { ReadReq: Req, ReadResp: Resp } = streamsPb;
const Options = Req.Options;
type Call = grpc.ServerWritableStream<ReadReq, ReadResp>;
type Filter = (record: StoredRecord) => boolean;

const streamName = (id: { getStreamName_asU8(): Uint8Array } | undefined): string => Buffer.from(id?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');

/** The wire form of one stored record, as the server sends it (string UUIDs: the client asks for them). */
export function readEvent(record: StoredRecord): InstanceType<typeof Resp.ReadEvent> {
  const recorded = new Resp.ReadEvent.RecordedEvent();
  const id = new sharedPb.UUID();
  id.setString(record.id);
  const identifier = new sharedPb.StreamIdentifier();
  identifier.setStreamName(Buffer.from(record.streamId, 'utf8'));
  recorded.setId(id);
  recorded.setStreamIdentifier(identifier);
  recorded.setStreamRevision(record.revision.toString());
  recorded.setCommitPosition(record.position.toString());
  recorded.setPreparePosition(record.transaction.toString());
  const metadata = recorded.getMetadataMap();
  metadata.set('type', record.type);
  metadata.set('content-type', record.contentType);
  metadata.set('created', record.created.toString());
  recorded.setData(record.data);
  recorded.setCustomMetadata(record.metadata);
  const event = new Resp.ReadEvent();
  event.setEvent(recorded);
  event.setCommitPosition(record.position.toString());
  return event;
}

// Serialising with google-protobuf costs more than anything else the stand-in does, so each
// record's answer is serialised once (tampering tests change a record's bytes: the key covers them).
const serialised = new WeakMap<StoredRecord, { data: Uint8Array; metadata: Uint8Array; bytes: Uint8Array }>();
function eventResp(record: StoredRecord): ReadResp {
  const resp = new Resp();
  let cached = serialised.get(record);
  if (!cached || cached.data !== record.data || cached.metadata !== record.metadata) {
    cached = { data: record.data, metadata: record.metadata, bytes: resp.setEvent(readEvent(record)).serializeBinary() };
    serialised.set(record, cached);
  }
  const bytes = cached.bytes;
  resp.serializeBinary = () => bytes;
  return resp;
}

/** A server-side filter on event type or stream name, by regex or prefixes. */
function filterOf(options: InstanceType<typeof Options>): { allowed: Filter; window: number; checkpointEvery: number } | null {
  if (options.getFilterOptionCase() !== Options.FilterOptionCase.FILTER) return null;
  const filter = options.getFilter() as InstanceType<typeof Options.FilterOptions>;
  const byType = filter.getFilterCase() === Options.FilterOptions.FilterCase.EVENT_TYPE;
  const expression = (byType ? filter.getEventType() : filter.getStreamIdentifier()) as InstanceType<typeof Options.FilterOptions.Expression>;
  const regex = expression.getRegex();
  const prefixes = expression.getPrefixList();
  const test = regex ? (text: string) => new RegExp(regex).test(text) : (text: string) => prefixes.some((p) => text.startsWith(p));
  const window = filter.getWindowCase() === Options.FilterOptions.WindowCase.MAX ? filter.getMax() : 32;
  return {
    allowed: (r) => test(byType ? r.type : r.streamId),
    window,
    checkpointEvery: Math.max(1, window * Math.max(1, filter.getCheckpointintervalmultiplier())),
  };
}

function readAll(call: Call, store: StandInStore, options: InstanceType<typeof Options>): void {
  const all = options.getAll() as InstanceType<typeof Options.AllOptions>;
  const count = Number(options.getCount());
  const backwards = options.getReadDirection() === Options.ReadDirection.BACKWARDS;
  const allowed = filterOf(options)?.allowed ?? (() => true);
  const records = store.visibleRecords();
  let picked: StoredRecord[];
  if (!backwards) {
    const start = all.getAllOptionCase() === Options.AllOptions.AllOptionCase.POSITION
      ? store.indexAt(BigInt((all.getPosition() as InstanceType<typeof Options.Position>).getCommitPosition()))
      : all.getAllOptionCase() === Options.AllOptions.AllOptionCase.END ? records.length : 0;
    picked = records.slice(start).filter(allowed).slice(0, count);
  } else {
    const end = all.getAllOptionCase() === Options.AllOptions.AllOptionCase.POSITION
      ? store.indexAt(BigInt((all.getPosition() as InstanceType<typeof Options.Position>).getCommitPosition()))
      : all.getAllOptionCase() === Options.AllOptions.AllOptionCase.START ? 0 : records.length;
    picked = records.slice(0, end).filter(allowed).reverse().slice(0, count);
  }
  for (const record of picked) call.write(eventResp(record));
  call.end();
}

function readStream(call: Call, store: StandInStore, options: InstanceType<typeof Options>): void {
  const stream = options.getStream() as InstanceType<typeof Options.StreamOptions>;
  const name = streamName(stream.getStreamIdentifier());
  const found = store.streamRecords(name);
  if (found === 'deleted') {
    call.emit('error', streamDeleted(name));
    return;
  }
  if (found === 'not-found') {
    const notFound = new Resp.StreamNotFound();
    notFound.setStreamIdentifier(stream.getStreamIdentifier());
    call.write(new Resp().setStreamNotFound(notFound));
    call.end();
    return;
  }
  const count = Number(options.getCount());
  const Case = Options.StreamOptions.RevisionOptionCase;
  const at = stream.getRevisionOptionCase() === Case.REVISION ? BigInt(stream.getRevision()) : undefined;
  const backwards = options.getReadDirection() === Options.ReadDirection.BACKWARDS;
  const picked = backwards
    ? found.filter((r) => at === undefined || r.revision <= at).reverse()
    : found.filter((r) => at === undefined ? stream.getRevisionOptionCase() !== Case.END : r.revision >= at);
  for (const record of picked.slice(0, count)) call.write(eventResp(record));
  call.end();
}

/**
 * Catch-up then live, as the server does it: a confirmation, the stored events after the start
 * (exclusive of a given position), a caught-up message, then each new event as it is appended.
 * A filtered subscription also sends checkpoints every `window x multiplier` events it looked at.
 */
function subscribe(call: Call, store: StandInStore, options: InstanceType<typeof Options>): void {
  const filter = filterOf(options);
  const allowed: Filter = filter?.allowed ?? (() => true);
  let after: bigint;
  let streamId: string | undefined;
  let revisionAfter = -1n;
  if (options.getStreamOptionCase() === Options.StreamOptionCase.ALL) {
    const all = options.getAll() as InstanceType<typeof Options.AllOptions>;
    const Case = Options.AllOptions.AllOptionCase;
    if (all.getAllOptionCase() === Case.POSITION) {
      const position = BigInt((all.getPosition() as InstanceType<typeof Options.Position>).getCommitPosition());
      store.indexAt(position);
      after = position;
    } else after = all.getAllOptionCase() === Case.END ? store.end() - 1n : -1n;
  } else {
    const stream = options.getStream() as InstanceType<typeof Options.StreamOptions>;
    streamId = streamName(stream.getStreamIdentifier());
    const Case = Options.StreamOptions.RevisionOptionCase;
    const found = store.streamRecords(streamId);
    const last = Array.isArray(found) ? (found.at(-1)?.revision ?? -1n) : -1n;
    revisionAfter = stream.getRevisionOptionCase() === Case.REVISION ? BigInt(stream.getRevision()) : stream.getRevisionOptionCase() === Case.END ? last : -1n;
    after = -1n;
  }
  const confirmation = new Resp.SubscriptionConfirmation();
  confirmation.setSubscriptionId(randomUUID());
  call.write(new Resp().setConfirmation(confirmation));
  let considered = 0;
  let caughtUp = false;
  let closed = false;
  const pump = (): void => {
    if (closed) return;
    const records = store.visibleRecords();
    if (records.length < store.records().length) setTimeout(pump, store.readLagMs).unref();
    for (let i = store.indexAfter(after); i < records.length; i += 1) {
      const record = records[i] as StoredRecord;
      after = record.position;
      if (streamId !== undefined) {
        if (record.streamId === streamId && record.revision > revisionAfter && record.type !== '$streamDeleted') call.write(eventResp(record));
        continue;
      }
      considered += 1;
      if (allowed(record)) call.write(eventResp(record));
      if (filter && considered % filter.checkpointEvery === 0) {
        const checkpoint = new Resp.Checkpoint();
        checkpoint.setCommitPosition(record.position.toString());
        checkpoint.setPreparePosition(record.position.toString());
        call.write(new Resp().setCheckpoint(checkpoint));
      }
    }
    if (!caughtUp) {
      caughtUp = true;
      call.write(new Resp().setCaughtUp(new Resp.CaughtUp()));
    }
  };
  const stop = store.onAppend(() => setImmediate(pump));
  const close = (): void => {
    closed = true;
    stop();
  };
  call.on('cancelled', close);
  call.on('close', close);
  call.on('error', close);
  pump();
}

/** Streams.Read: a bounded read, or a subscription when the request asks for one. */
export function handleRead(store: StandInStore) {
  return (call: Call): void => {
    const options = call.request.getOptions() as InstanceType<typeof Options>;
    try {
      if (options.getCountOptionCase() === Options.CountOptionCase.SUBSCRIPTION) return subscribe(call, store, options);
      if (options.getStreamOptionCase() === Options.StreamOptionCase.ALL) return readAll(call, store, options);
      return readStream(call, store, options);
    } catch (error) {
      call.emit('error', error instanceof InvalidPosition ? invalidPosition() : (error as Error));
    }
  };
}
