import { describe, expect, it } from 'vitest';
import { createDecodeMemo, type MemoRow } from '../src/events/log/decode-memo.js';
import type { RecordedEvent } from '../src/events/log/event-log.js';

const row = (data: string, position = 1): MemoRow => ({
  globalPosition: position, streamId: 's', streamRevision: 0, type: 'T', schemaVersion: 1, data, metadata: '{}',
});
const counting = () => {
  let calls = 0;
  return {
    get calls() { return calls; },
    decode: (r: MemoRow) => () => { calls += 1; return { type: r.type, data: JSON.parse(r.data) } as unknown as RecordedEvent; },
  };
};

describe('decode memo', () => {
  it('given a clear row decoded once, when it is read again unchanged, then the frozen event is shared', () => {
    const memo = createDecodeMemo();
    const c = counting();
    const r = row('{"decays":[{"id":"a"}]}');
    const first = memo.decode(r, c.decode(r));
    const again = memo.decode({ ...r }, c.decode(r));
    expect(again).toBe(first);
    expect(c.calls).toBe(1);
    expect(Object.isFrozen((first.data as { decays: object[] }).decays[0])).toBe(true);
  });

  it('given a row changed on disk, when it is read, then it is decoded again', () => {
    const memo = createDecodeMemo();
    const c = counting();
    memo.decode(row('{"a":1}'), c.decode(row('{"a":1}')));
    const changed = memo.decode(row('{"a":7}'), c.decode(row('{"a":7}')));
    expect(c.calls).toBe(2);
    expect(changed.data).toEqual({ a: 7 });
  });

  it('never keeps a sealed row, and drops the oldest rows past its byte budget', () => {
    const memo = createDecodeMemo(20);
    const c = counting();
    const sealed = row('{"$sealed":{"k":[1]}}');
    memo.decode(sealed, c.decode(sealed));
    memo.decode(sealed, c.decode(sealed));
    expect(c.calls).toBe(2);
    const a = row('{"a":"0123456789"}', 2);
    const b = row('{"b":"0123456789"}', 3);
    memo.decode(a, c.decode(a));
    memo.decode(b, c.decode(b));
    memo.decode(b, c.decode(b));
    memo.decode(a, c.decode(a));
    expect(c.calls).toBe(5);
  });
});
