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

  it('given a sealed row as written, then it is kept only with a key test, read while its keys pass it, and forgotten by dropSealed', () => {
    const c = counting();
    const sealed = row('{"memoryId":"m1","$sealed":{"k":[3,7],"f":["text"],"iv":"a","ct":"b","tag":"c"}}');
    const written = { type: 'T', data: { memoryId: 'm1', text: 'plain' } } as unknown as RecordedEvent;
    const without = createDecodeMemo();
    without.rememberWritten([{ row: sealed, event: written }]);
    expect(without.decode(sealed, c.decode(sealed))).not.toBe(written);
    let live = true;
    const asked: number[][] = [];
    const memo = createDecodeMemo(undefined, (keys) => {
      asked.push([...keys]);
      return live;
    });
    memo.rememberWritten([{ row: sealed, event: written }]);
    expect(memo.decode(sealed, c.decode(sealed))).toBe(written);
    expect(asked).toEqual([[3, 7]]);
    live = false;
    expect(memo.decode(sealed, c.decode(sealed))).not.toBe(written);
    live = true;
    memo.rememberWritten([{ row: sealed, event: written }]);
    memo.dropSealed();
    expect(memo.decode(sealed, c.decode(sealed))).not.toBe(written);
    expect(c.calls).toBe(3);
  });

  it('given a grouped sealed row as written, then a hit needs every member of its box as written', () => {
    const c = counting();
    const box = (id: string, position: number) =>
      row(`{"memoryId":"${id}","$sealed":{"k":[2],"f":["text"],"iv":"i","ct":"${id}","tag":"t","p":[1,2]}}`, position);
    const [one, two] = [box('m1', 1), box('m2', 2)];
    const event = { type: 'T', data: { memoryId: 'm1', text: 'plain' } } as unknown as RecordedEvent;
    const memo = createDecodeMemo(undefined, () => true);
    memo.rememberWritten([{ row: one, event }, { row: two, event: { ...event } }]);
    expect(memo.decode(one, c.decode(one), (at) => [one, two][at - 1])).toBe(event);
    expect(memo.decode(one, c.decode(one), (at) => (at === 2 ? { ...two, data: two.data.replace('"m2"', '"m9"') } : one))).not.toBe(event);
    expect(memo.decode(one, c.decode(one))).not.toBe(event);
    expect(memo.decode(one, c.decode(one), (at) => [one, two][at - 1])).toBe(event);
    expect(c.calls).toBe(2);
    const alone = createDecodeMemo(undefined, () => true);
    alone.rememberWritten([{ row: one, event }]);
    expect(alone.decode(one, c.decode(one), (at) => [one, two][at - 1])).not.toBe(event);
  });

  it('given a sealed row decoded (not written), then it is never kept, and the oldest rows go past the byte budget', () => {
    const memo = createDecodeMemo(20, () => true);
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
