import { describe, expect, it } from 'vitest';
import { planConsolidation, unionSources, type ConsolidationCandidate } from '../src/commands/lifecycle/consolidation.js';
import { lifecycleSettingsSchema } from '../src/commands/lifecycle/settings.js';

const day = 86_400_000;
const now = Date.parse('2026-06-01T00:00:00Z');
const settings = lifecycleSettingsSchema().parse({}).consolidation;
let n = 0;
const m = (over: Partial<ConsolidationCandidate> = {}): ConsolidationCandidate => {
  n += 1;
  return {
    memoryId: `m${String(n).padStart(3, '0')}`, importance: 0.3, createdAt: new Date(now - 10 * day + n * 1000).toISOString(), status: 'active',
    sessionId: 's1', personaId: null, userId: 'u1', ...over,
  };
};

describe('consolidation plan (defaults: 3 memories, 7 days, importance below 0.5, 5 groups)', () => {
  it('groups old, unimportant, active memories of a session, oldest first, with the highest importance', () => {
    const members = [m({ importance: 0.2 }), m({ importance: 0.45 }), m()];
    const left = [m({ importance: 0.5 }), m({ createdAt: new Date(now - 6 * day).toISOString() }), m({ status: 'archived' })];
    const [group, ...rest] = planConsolidation([...left, ...members].reverse(), settings, now);
    expect(rest).toEqual([]);
    expect(group).toEqual({ memoryIds: members.map((x) => x.memoryId), scope: { sessionId: 's1', personaId: null, userId: 'u1' }, importance: 0.45 });
  });
  it('drops groups under the minimum size, takes the largest first, at most maxGroups', () => {
    const sessions = [2, 3, 6, 4, 5, 3, 3].flatMap((size, s) => Array.from({ length: size }, () => m({ sessionId: `s${s}` })));
    const groups = planConsolidation(sessions, settings, now);
    expect(groups.map((g) => g.memoryIds.length)).toEqual([6, 5, 4, 3, 3]);
    expect(groups.map((g) => g.scope.sessionId)).toEqual(['s2', 's4', 's3', 's1', 's5']);
    expect(planConsolidation(sessions, { ...settings, minGroupSize: 5, maxGroups: 10 }, now)).toHaveLength(2);
  });
  it('never groups memories without a session by session, nor memories of different scopes', () => {
    expect(planConsolidation([m({ sessionId: null }), m({ sessionId: null }), m({ sessionId: null })], settings, now)).toEqual([]);
    expect(planConsolidation([m(), m({ userId: 'u2' }), m()], settings, now)).toEqual([]);
  });
  it('by similarity: connected components of the neighbour pairs at or above the threshold (union-find), within one scope', () => {
    const [a, b, c, d, e, f] = [m({ sessionId: null }), m({ sessionId: 'x' }), m({ sessionId: 'y' }), m(), m(), m()];
    const all = [a, b, c, d, e, f] as ConsolidationCandidate[];
    // Scopes differ by session here, so only pairs inside one scope join: make a, b, c share one.
    const same = all.map((x) => ({ ...x, sessionId: null }));
    const id = (i: number) => same[i]?.memoryId as string;
    const pairs = [
      { a: id(0), b: id(1), score: 0.9 },
      { a: id(2), b: id(1), score: 0.71 },
      { a: id(3), b: id(4), score: 0.69 },
      { a: id(4), b: id(5), score: 0.95 },
    ];
    const semantic = { ...settings, grouping: 'semantic' as const };
    expect(planConsolidation(same, semantic, now, pairs).map((g) => g.memoryIds)).toEqual([[id(0), id(1), id(2)]]);
    expect(planConsolidation(same, { ...semantic, similarity: 0.6 }, now, pairs).map((g) => g.memoryIds)).toEqual([[id(0), id(1), id(2)], [id(3), id(4), id(5)]]);
    // The same pairs in another order give the same groups.
    expect(planConsolidation(same, semantic, now, [...pairs].reverse())).toEqual(planConsolidation(same, semantic, now, pairs));
    // A pair across scopes is ignored.
    expect(planConsolidation(all, { ...semantic, minGroupSize: 2 }, now, pairs).map((g) => g.memoryIds)).toEqual([[id(4), id(5)]]);
  });
  it('unites the sources of the originals, each message once', () => {
    const s = (messageId: string) => ({ messageId, sessionId: 's1', role: 'user' as const, senderId: 'u1', senderName: null, content: messageId, at: null });
    expect(unionSources([[s('1'), s('2')], [s('2'), s('3')], []]).map((x) => x.messageId)).toEqual(['1', '2', '3']);
  });
});
