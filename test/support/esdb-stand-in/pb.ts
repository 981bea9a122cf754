// The client's own generated protobuf messages and service definitions: the stand-in speaks
// exactly the wire format @eventstore/db-client 6.x was built against.
import sharedPb from '@eventstore/db-client/generated/shared_pb.js';
import statusPb from '@eventstore/db-client/generated/status_pb.js';
import codePb from '@eventstore/db-client/generated/code_pb.js';
import streamsPb from '@eventstore/db-client/generated/streams_pb.js';
import streamsGrpc from '@eventstore/db-client/generated/streams_grpc_pb.js';
import featuresPb from '@eventstore/db-client/generated/serverfeatures_pb.js';
import featuresGrpc from '@eventstore/db-client/generated/serverfeatures_grpc_pb.js';
import anyPb from 'google-protobuf/google/protobuf/any_pb.js';
import emptyPb from 'google-protobuf/google/protobuf/empty_pb.js';

export { anyPb, codePb, emptyPb, featuresGrpc, featuresPb, sharedPb, statusPb, streamsGrpc, streamsPb };

export type ReadReq = InstanceType<typeof streamsPb.ReadReq>;
export type ReadResp = InstanceType<typeof streamsPb.ReadResp>;
export type RecordedEventPb = InstanceType<typeof streamsPb.ReadResp.ReadEvent.RecordedEvent>;
