// TEST STAND-IN: the errors an EventStoreDB server sends, with the status codes and the
// `exception` metadata the client reads to pick its error class.
import * as grpc from '@grpc/grpc-js';
import type { Current, Expected } from './store.js';

export type RpcError = Partial<grpc.ServiceError> & Error;

function rpcError(code: grpc.status, details: string, entries: Record<string, string> = {}): RpcError {
  const metadata = new grpc.Metadata();
  for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  return Object.assign(new Error(details), { code, details, metadata });
}

/** How the server writes an expected revision into error metadata: -1 no stream, -2 any, -4 stream exists. */
export const expectedNumber = (expected: Expected): string =>
  typeof expected === 'bigint' ? expected.toString() : expected === 'no_stream' ? '-1' : expected === 'any' ? '-2' : '-4';

export const streamDeleted = (streamName: string): RpcError =>
  rpcError(grpc.status.FAILED_PRECONDITION, `Event stream '${streamName}' is deleted.`, { exception: 'stream-deleted', 'stream-name': streamName });

export const wrongExpectedVersion = (operation: string, streamName: string, expected: Expected, current: Current): RpcError =>
  rpcError(
    grpc.status.FAILED_PRECONDITION,
    `${operation} failed due to WrongExpectedVersion. Stream: ${streamName}, Expected version: ${expectedNumber(expected)}, Actual version: ${current ?? -1}`,
    { exception: 'wrong-expected-version', 'stream-name': streamName, 'expected-version': expectedNumber(expected), 'actual-version': (current ?? -1n).toString() },
  );

export const invalidPosition = (): RpcError => rpcError(grpc.status.INVALID_ARGUMENT, 'Trying to read from an invalid position.');

export const missingMetadata = (property: string): RpcError =>
  rpcError(grpc.status.INVALID_ARGUMENT, `Required Metadata Property '${property}' is missing`, {
    exception: 'missing-required-metadata-property',
    'required-metadata-properties': 'type,content-type',
  });
