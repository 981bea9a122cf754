// TEST STAND-IN for an EventStoreDB/KurrentDB server. No server can be installed on the CI
// machines, so this small in-memory gRPC server speaks the parts of the protocol the
// @eventstore/db-client uses: Streams (Read, Append, BatchAppend, Delete, Tombstone) and
// ServerFeatures. It is named a stand-in everywhere and never used as a product log; ADR 27 says
// what running the suites against it proves and what only a real server can.
import * as grpc from '@grpc/grpc-js';
import { featuresGrpc, featuresPb, streamsGrpc } from './pb.js';
import { handleRead } from './read.js';
import { createStandInStore, type StandInStore, type StandInStoreOptions } from './store.js';
import { handleAppend, handleBatchAppend, handleDelete } from './write.js';

export interface StandInOptions extends StandInStoreOptions {
  /** 0 (default) picks a free port on 127.0.0.1. */
  readonly port?: number;
  /**
   * Advertise BatchAppend through ServerFeatures (default true, as servers since 21.10 do); the client
   * then appends through it, otherwise through the older Append call.
   */
  readonly batchAppend?: boolean;
  /** Keep the data of an earlier stand-in (a restart). */
  readonly store?: StandInStore;
}

export interface EventStoreStandIn {
  readonly port: number;
  /** `esdb://127.0.0.1:<port>?tls=false`, what LIVINGMEMORY_EVENTSTORE_URL would hold. */
  readonly url: string;
  readonly store: StandInStore;
  /** Drops every connection and stops listening; the data stays in `store`. */
  stop(): Promise<void>;
  /** Listens again on the same port with the same data, as a restarted server would. */
  restart(): Promise<void>;
}

const streamsService = 'event_store.client.streams.Streams';

function supportedMethods(batchAppend: boolean) {
  const methods = ['Read', 'Append', 'Delete', 'Tombstone', ...(batchAppend ? ['BatchAppend'] : [])];
  const answer = new featuresPb.SupportedMethods();
  answer.setEventStoreServerVersion('24.10.0-test-stand-in');
  for (const name of methods) answer.addMethods(new featuresPb.SupportedMethod().setServiceName(streamsService).setMethodName(name));
  return answer;
}

function serverFor(store: StandInStore, batchAppend: boolean): grpc.Server {
  const server = new grpc.Server();
  server.addService(streamsGrpc.StreamsService, {
    read: handleRead(store),
    append: handleAppend(store),
    delete: handleDelete(store, false),
    tombstone: handleDelete(store, true),
    batchAppend: handleBatchAppend(store),
  } as grpc.UntypedServiceImplementation);
  server.addService(featuresGrpc.ServerFeaturesService, {
    getSupportedMethods: (_call: unknown, callback: grpc.sendUnaryData<unknown>) => callback(null, supportedMethods(batchAppend)),
  } as grpc.UntypedServiceImplementation);
  return server;
}

function listen(server: grpc.Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
}

/** Starts the stand-in on 127.0.0.1. */
export async function startEventStoreStandIn(options: StandInOptions = {}): Promise<EventStoreStandIn> {
  const store = options.store ?? createStandInStore(options);
  const batchAppend = options.batchAppend ?? true;
  let server = serverFor(store, batchAppend);
  const port = await listen(server, options.port ?? 0);
  let running = true;
  return {
    port,
    url: `esdb://127.0.0.1:${port}?tls=false`,
    store,
    async stop() {
      if (!running) return;
      running = false;
      server.forceShutdown();
    },
    async restart() {
      if (running) server.forceShutdown();
      server = serverFor(store, batchAppend);
      await listen(server, port);
      running = true;
    },
  };
}
