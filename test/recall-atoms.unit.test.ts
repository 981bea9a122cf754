import { describe, expect, it } from 'vitest';
import { applyAtomPolicy, isLiveAtom, type AtomView } from '../src/queries/recall/atom-policy.js';
import type { RecalledMemory } from '../src/queries/recall/types.js';

const now = '2024-06-01T00:00:00.000Z';
const nowMs = Date.parse(now);
const memory = (memoryId: string, text: string): RecalledMemory => ({
  memoryId, text, score: 0.5, importance: 0.5, createdAt: '2024-05-01T00:00:00.000Z', sessionId: null, facts: [],
});
const atom = (content: string, status: string, expiresAt: string | null = null): AtomView => ({ content, status, expiresAt });

const atoms: Record<string, AtomView[]> = {
  m1: [
    atom('Bob works at Google', 'active'),
    atom('Bob lives in Paris', 'active', '2024-05-01T00:00:00.000Z'),
    atom('Bob is 29', 'superseded'),
    atom('Bob likes tea', 'active', '2024-07-01T00:00:00.000Z'),
    atom('Bob works at Google', 'active'),
  ],
  m2: [atom('小明住在南京', 'expired'), atom('小明喜欢喝茶', 'active', now), atom('小明有一只猫', 'dormant')],
  m4: [atom('Bob lives in Paris', 'superseded'), atom('Bob is 29', 'expired')],
};
const atomsOf = (id: string): AtomView[] => atoms[id] ?? [];
const results = [memory('m1', 'Bob works at Google, lives in Paris, is 29'), memory('m2', '小明住在南京'), memory('m3', 'I like green tea')];

describe('applyAtomPolicy', () => {
  it('a memory with atoms shows only its live facts', () => {
    const [m1] = applyAtomPolicy(results, atomsOf, now);
    expect(m1?.memoryId).toBe('m1');
    expect(m1?.facts).toEqual(['Bob works at Google', 'Bob likes tea']);
    expect(m1?.score).toBe(0.5);
  });

  it('a memory whose atoms all aged out stays, shown by its own text (expiry exactly at now counts as expired)', () => {
    const kept = applyAtomPolicy(results, atomsOf, now);
    expect(kept.map((m) => m.memoryId)).toEqual(['m1', 'm2', 'm3']);
    expect(kept[1]).toEqual(results[1]);
    // one millisecond earlier, m2's atom is still alive: its live fact is shown instead of the text
    const earlier = applyAtomPolicy(results, atomsOf, nowMs - 1);
    expect(earlier.map((m) => m.memoryId)).toEqual(['m1', 'm2', 'm3']);
    expect(earlier[1]?.facts).toEqual(['小明喜欢喝茶']);
  });

  it('a memory with no live atom and a superseded one is dropped: its text says what a newer statement replaced', () => {
    const withReplaced = [...results, memory('m4', 'Bob lives in Paris and is 29')];
    expect(applyAtomPolicy(withReplaced, atomsOf, now).map((m) => m.memoryId)).toEqual(['m1', 'm2', 'm3']);
    // a record is kept whatever its atoms say
    expect(applyAtomPolicy(withReplaced, atomsOf, now, (id) => id === 'm4').map((m) => m.memoryId)).toEqual(['m1', 'm2', 'm3', 'm4']);
  });

  it('a memory without atoms is kept with its text', () => {
    const m3 = applyAtomPolicy(results, atomsOf, new Date(nowMs)).find((m) => m.memoryId === 'm3');
    expect(m3).toEqual(results[2]);
    expect(m3?.facts).toEqual([]);
  });
});

describe('applyAtomPolicy on records (memories with sources)', () => {
  const isRecord = (id: string): boolean => id === 'm2' || id === 'm3';

  it('keeps a record whose atoms all expired, with its own text and no facts', () => {
    const kept = applyAtomPolicy(results, atomsOf, now, isRecord);
    expect(kept.map((m) => m.memoryId)).toEqual(['m1', 'm2', 'm3']);
    expect(kept[1]).toEqual(results[1]);
  });

  it('shows a record by its text even while some atoms are live; an atom-backed memory still shows only live facts', () => {
    const kept = applyAtomPolicy(results, atomsOf, nowMs - 1, (id) => id === 'm2');
    expect(kept[1]?.facts).toEqual([]);
    expect(kept[1]?.text).toBe('小明住在南京');
    expect(kept[0]?.facts).toEqual(['Bob works at Google', 'Bob likes tea']);
  });

  it('keeps an atom-backed memory whose atoms all expired beside a kept record, both by their text', () => {
    const onlyM1IsRecord = applyAtomPolicy(results, atomsOf, now, (id) => id === 'm1');
    expect(onlyM1IsRecord.map((m) => m.memoryId)).toEqual(['m1', 'm2', 'm3']);
    expect(onlyM1IsRecord[0]).toEqual(results[0]);
    expect(onlyM1IsRecord[1]).toEqual(results[1]);
  });
});

describe('isLiveAtom', () => {
  it('needs status active and an expiry strictly after now', () => {
    expect(isLiveAtom(atom('x', 'active'), nowMs)).toBe(true);
    expect(isLiveAtom(atom('x', 'active', now), nowMs)).toBe(false);
    expect(isLiveAtom(atom('x', 'active', '2024-06-01T00:00:00.001Z'), nowMs)).toBe(true);
    expect(isLiveAtom(atom('x', 'active', 'garbage'), nowMs)).toBe(false);
    for (const status of ['dormant', 'superseded', 'expired', 'forgotten']) expect(isLiveAtom(atom('x', status), nowMs)).toBe(false);
  });
});
