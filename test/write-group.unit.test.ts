import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/events/errors.js';
import type { CheckedWrite } from '../src/engine/write-batch.js';
import { createWriteGroup } from '../src/engine/write-group.js';
import type { WriteReceipt } from '../src/engine/write-path.js';

/** A group over recording stand-ins of writeMemory's path and the batch path; each call resolves on the next turn. */
function group(options: { batching?: boolean } = {}) {
  const calls: string[] = [];
  let ids = 0;
  const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
  const receipt = (memoryId: string): WriteReceipt => ({ memoryId, position: 1n });
  const writes = createWriteGroup({
    newId: () => `id-${(ids += 1)}`,
    single: (input) => {
      const { memoryId, text } = input as { memoryId: string; text: string };
      calls.push(`single ${text}`);
      return later(receipt(memoryId));
    },
    check: (input) => {
      const { text } = input as { text: unknown };
      if (typeof text !== 'string') throw new ValidationError('text', 'must be a string');
      return { text } as unknown as CheckedWrite['data'];
    },
    batch:
      options.batching === false
        ? null
        : (entries) => {
            calls.push(`batch ${entries.map((e) => (e.data as unknown as { text: string }).text).join(',')}`);
            return later(entries.map((e) => receipt(`b-${(e.data as unknown as { text: string }).text}`)));
          },
  });
  return { writes, calls };
}

describe('the write group', () => {
  it('given calls one after another, when each is awaited, then each goes alone with a new id', async () => {
    const { writes, calls } = group();
    for (const text of ['a', 'b', 'c']) await writes.write({ text }, {});
    expect(calls).toEqual(['single a', 'single b', 'single c']);
  });

  it('given calls made while one is in flight, when the group drains, then they go in one batch and the callers who write again join the next', async () => {
    const { writes, calls } = group();
    const first = writes.write({ text: 'a' }, {});
    const queued = ['b', 'c', 'd'].map((text) => writes.write({ text }, {}).then(() => writes.write({ text: text.toUpperCase() }, {})));
    expect((await first).memoryId).toBe('id-1');
    expect((await Promise.all(queued)).map((r) => r.memoryId)).toEqual(['b-B', 'b-C', 'b-D']);
    expect(calls).toEqual(['single a', 'batch b,c,d', 'batch B,C,D']);
    await writes.idle();
  });

  it('given a bad input while a write is in flight, when called, then it alone is refused at once and never reaches a batch', async () => {
    const { writes, calls } = group();
    const first = writes.write({ text: 'a' }, {});
    await expect(writes.write({ text: 7 }, {})).rejects.toMatchObject({ field: 'text' });
    const second = writes.write({ text: 'b' }, {});
    await Promise.all([first, second]);
    expect(calls).toEqual(['single a', 'batch b']);
  });

  it('given a log that cannot append several streams at once, when calls overlap, then each goes alone', async () => {
    const { writes, calls } = group({ batching: false });
    const receipts = await Promise.all(['a', 'b', 'c'].map((text) => writes.write({ text }, {})));
    expect(calls).toEqual(['single a', 'single b', 'single c']);
    expect(receipts.map((r) => r.memoryId)).toEqual(['id-1', 'id-2', 'id-3']);
  });

  it('given a memory named by its caller, when a write is in flight, then it goes alone with its own id', async () => {
    const { writes, calls } = group();
    const first = writes.write({ text: 'a' }, {});
    const named = await writes.write({ memoryId: 'mine', text: 'n' }, {});
    await first;
    expect(named.memoryId).toBe('mine');
    expect(calls).toEqual(['single a', 'single n']);
  });
});
