import { ConcurrencyError } from '../errors.js';
import { describeRevision, type ExpectedRevision } from './event-log.js';

/** Throws the one conflict error unless `actual` (undefined: no stream) satisfies `expected`. */
export function checkExpectedRevision(streamId: string, expected: ExpectedRevision, actual: bigint | undefined): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && actual === undefined) ||
    (expected === 'stream_exists' && actual !== undefined) ||
    (typeof expected === 'bigint' && actual === expected);
  if (!ok) throw new ConcurrencyError(streamId, describeRevision(expected), describeRevision(actual));
}
