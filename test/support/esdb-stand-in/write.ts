// TEST STAND-IN: the write RPCs of an EventStoreDB server's Streams service (Append, BatchAppend,
// Delete, Tombstone), answering with the messages and errors the real server sends.
import * as grpc from '@grpc/grpc-js';
import { anyPb, codePb, emptyPb, sharedPb, statusPb, streamsPb } from './pb.js';
import { missingMetadata, streamDeleted, wrongExpectedVersion, type RpcError } from './errors.js';
import { StreamDeleted, WrongExpectedVersion, type Expected, type ProposedEvent, type StandInStore, type StoredRecord } from './store.js';

type Uuid = InstanceType<typeof sharedPb.UUID>;
type Identifier = InstanceType<typeof sharedPb.StreamIdentifier>;

const streamName = (id: Identifier | undefined): string => Buffer.from(id?.getStreamName_asU8() ?? new Uint8Array()).toString('utf8');

function uuidText(uuid: Uuid | undefined): string {
  if (!uuid) return crypto.randomUUID();
  if (!uuid.hasStructured()) return uuid.getString();
  const s = uuid.getStructured() as InstanceType<typeof sharedPb.UUID.Structured>;
  const bytes = Buffer.alloc(16);
  bytes.writeBigInt64BE(BigInt(s.getMostSignificantBits()), 0);
  bytes.writeBigInt64BE(BigInt(s.getLeastSignificantBits()), 8);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface Proposed {
  getId(): Uuid | undefined;
  getMetadataMap(): { get(key: string): string | undefined };
  getData_asU8(): Uint8Array;
  getCustomMetadata_asU8(): Uint8Array;
}

/** A proposed message as the store takes it; the server refuses one without `type` or `content-type`. */
function proposedEvent(message: Proposed): ProposedEvent {
  const metadata = message.getMetadataMap();
  const type = metadata.get('type');
  if (type === undefined) throw missingMetadata('type');
  const contentType = metadata.get('content-type');
  if (contentType === undefined) throw missingMetadata('content-type');
  return { id: uuidText(message.getId()), type, contentType, data: message.getData_asU8(), metadata: message.getCustomMetadata_asU8() };
}

/** The expected revision of a request's oneof, whatever message carries it. */
function expectedOf(caseValue: number, cases: { REVISION: number; NO_STREAM: number; ANY: number; STREAM_EXISTS: number }, revision: () => string): Expected {
  if (caseValue === cases.REVISION) return BigInt(revision());
  if (caseValue === cases.NO_STREAM) return 'no_stream';
  if (caseValue === cases.STREAM_EXISTS) return 'stream_exists';
  return 'any';
}

function appendSuccess(records: readonly StoredRecord[], current: bigint | undefined) {
  const success = new streamsPb.AppendResp.Success();
  if (current === undefined) success.setNoStream(new sharedPb.Empty());
  else success.setCurrentRevision(current.toString());
  const last = records.at(-1);
  if (!last) success.setNoPosition(new sharedPb.Empty());
  else success.setPosition(new streamsPb.AppendResp.Position().setCommitPosition(last.position.toString()).setPreparePosition(last.position.toString()));
  return new streamsPb.AppendResp().setSuccess(success);
}

function appendConflict(error: WrongExpectedVersion) {
  const wrong = new streamsPb.AppendResp.WrongExpectedVersion();
  if (error.current === undefined) wrong.setCurrentNoStream(new sharedPb.Empty());
  else wrong.setCurrentRevision(error.current.toString());
  const { expected } = error;
  if (typeof expected === 'bigint') wrong.setExpectedRevision(expected.toString());
  else if (expected === 'no_stream') wrong.setExpectedNoStream(new sharedPb.Empty());
  else if (expected === 'stream_exists') wrong.setExpectedStreamExists(new sharedPb.Empty());
  else wrong.setExpectedAny(new sharedPb.Empty());
  return new streamsPb.AppendResp().setWrongExpectedVersion(wrong);
}

/** Streams.Append: options first, then the proposed messages; one answer when the client ends. */
export function handleAppend(store: StandInStore) {
  return (call: grpc.ServerReadableStream<InstanceType<typeof streamsPb.AppendReq>, unknown>, callback: grpc.sendUnaryData<unknown>): void => {
    let options: InstanceType<typeof streamsPb.AppendReq.Options> | undefined;
    const events: ProposedEvent[] = [];
    let failed: RpcError | null = null;
    call.on('data', (req: InstanceType<typeof streamsPb.AppendReq>) => {
      try {
        if (req.hasOptions()) options = req.getOptions();
        else events.push(proposedEvent(req.getProposedMessage() as Proposed));
      } catch (error) {
        failed = error as RpcError;
      }
    });
    call.on('end', () => {
      if (failed) return callback(failed);
      if (!options) return callback(Object.assign(new Error('no options'), { code: grpc.status.INVALID_ARGUMENT }));
      const name = streamName(options.getStreamIdentifier());
      const Case = streamsPb.AppendReq.Options.ExpectedStreamRevisionCase;
      const opts = options;
      const expected = expectedOf(opts.getExpectedStreamRevisionCase(), Case, () => opts.getRevision());
      try {
        const { records, current } = store.append(name, expected, events);
        callback(null, appendSuccess(records, current));
      } catch (error) {
        if (error instanceof WrongExpectedVersion) return callback(null, appendConflict(error));
        callback(error instanceof StreamDeleted ? streamDeleted(name) : (error as Error));
      }
    });
  };
}

function packed(message: { serializeBinary(): Uint8Array }, name: string) {
  const any = new anyPb.Any();
  any.pack(message.serializeBinary(), name);
  return any;
}

/** The google.rpc.Status a batch append fails with: the detail message is what the client unpacks. */
function batchError(error: unknown, identifier: Identifier | undefined) {
  const status = new statusPb.Status();
  if (error instanceof WrongExpectedVersion) {
    const wrong = new sharedPb.WrongExpectedVersion();
    if (error.current === undefined) wrong.setCurrentNoStream(new emptyPb.Empty());
    else wrong.setCurrentStreamRevision(error.current.toString());
    const { expected } = error;
    if (typeof expected === 'bigint') wrong.setExpectedStreamPosition(expected.toString());
    else if (expected === 'no_stream') wrong.setExpectedNoStream(new emptyPb.Empty());
    else if (expected === 'stream_exists') wrong.setExpectedStreamExists(new emptyPb.Empty());
    else wrong.setExpectedAny(new emptyPb.Empty());
    return status.setCode(codePb.Code.FAILED_PRECONDITION).setMessage(error.message).setDetails(packed(wrong, 'event_store.client.WrongExpectedVersion'));
  }
  if (error instanceof StreamDeleted) {
    const deleted = new sharedPb.StreamDeleted().setStreamIdentifier(identifier);
    return status.setCode(codePb.Code.FAILED_PRECONDITION).setMessage(error.message).setDetails(packed(deleted, 'event_store.client.StreamDeleted'));
  }
  const message = (error as { details?: string; message?: string }).details ?? (error as Error).message;
  return status.setCode(codePb.Code.INVALID_ARGUMENT).setMessage(message).setDetails(packed(new sharedPb.BadRequest().setMessage(message), 'event_store.client.BadRequest'));
}

/** Streams.BatchAppend: many appends on one duplex call, each keyed by its correlation id. */
export function handleBatchAppend(store: StandInStore) {
  type Req = InstanceType<typeof streamsPb.BatchAppendReq>;
  return (call: grpc.ServerDuplexStream<Req, InstanceType<typeof streamsPb.BatchAppendResp>>): void => {
    const pending = new Map<string, { options: InstanceType<typeof streamsPb.BatchAppendReq.Options>; events: Req['getProposedMessagesList'] extends () => infer L ? L : never }>();
    call.on('data', (req: Req) => {
      const correlation = req.getCorrelationId() as Uuid;
      const key = uuidText(correlation);
      const entry = pending.get(key) ?? { options: req.getOptions() as InstanceType<typeof streamsPb.BatchAppendReq.Options>, events: [] };
      entry.events.push(...req.getProposedMessagesList());
      pending.set(key, entry);
      if (!req.getIsFinal()) return;
      pending.delete(key);
      const resp = new streamsPb.BatchAppendResp().setCorrelationId(correlation);
      const identifier = entry.options.getStreamIdentifier();
      resp.setStreamIdentifier(identifier);
      const Case = streamsPb.BatchAppendReq.Options.ExpectedStreamPositionCase;
      const expected = expectedOf(entry.options.getExpectedStreamPositionCase(), { ...Case, REVISION: Case.STREAM_POSITION }, () => entry.options.getStreamPosition());
      if (typeof expected === 'bigint') resp.setStreamPosition(expected.toString());
      else if (expected === 'no_stream') resp.setNoStream(new emptyPb.Empty());
      else if (expected === 'stream_exists') resp.setStreamExists(new emptyPb.Empty());
      else resp.setAny(new emptyPb.Empty());
      try {
        const { records, current } = store.append(streamName(identifier), expected, entry.events.map((m) => proposedEvent(m as Proposed)));
        const success = new streamsPb.BatchAppendResp.Success();
        if (current === undefined) success.setNoStream(new emptyPb.Empty());
        else success.setCurrentRevision(current.toString());
        const last = records.at(-1);
        if (!last) success.setNoPosition(new emptyPb.Empty());
        else success.setPosition(new sharedPb.AllStreamPosition().setCommitPosition(last.position.toString()).setPreparePosition(last.position.toString()));
        call.write(resp.setSuccess(success));
      } catch (error) {
        call.write(resp.setError(batchError(error, identifier)));
      }
    });
    call.on('end', () => call.end());
  };
}

type DeleteLike = InstanceType<typeof streamsPb.DeleteReq> | InstanceType<typeof streamsPb.TombstoneReq>;

/** Streams.Delete (soft) and Streams.Tombstone (hard): the same checks, a position in the answer. */
export function handleDelete(store: StandInStore, hard: boolean) {
  return (call: grpc.ServerUnaryCall<DeleteLike, unknown>, callback: grpc.sendUnaryData<unknown>): void => {
    const options = call.request.getOptions() as InstanceType<typeof streamsPb.DeleteReq.Options>;
    const name = streamName(options.getStreamIdentifier());
    const Case = streamsPb.DeleteReq.Options.ExpectedStreamRevisionCase;
    const expected = expectedOf(options.getExpectedStreamRevisionCase(), Case, () => options.getRevision());
    try {
      const record = hard ? store.tombstone(name, expected) : store.softDelete(name, expected);
      const Resp = hard ? streamsPb.TombstoneResp : streamsPb.DeleteResp;
      const position = new Resp.Position().setCommitPosition(record.position.toString()).setPreparePosition(record.position.toString());
      callback(null, new Resp().setPosition(position));
    } catch (error) {
      if (error instanceof WrongExpectedVersion) return callback(wrongExpectedVersion(hard ? 'Tombstone' : 'Delete', name, expected, error.current));
      callback(error instanceof StreamDeleted ? streamDeleted(name) : (error as Error));
    }
  };
}
