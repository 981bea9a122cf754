import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { accessReinforcement, atomTick, decayScore, dormantAfterTtls, transition, type AtomLifeInput } from '../src/commands/lifecycle/atoms.js';
import { dueDates, firstSlotDateAfter, localDate, nextDate, slotInstant } from '../src/commands/lifecycle/calendar.js';
import { decayColumnsOf, decayInputsOf, decayOne } from '../src/commands/lifecycle/decay.js';
import { decidePolicy } from '../src/commands/lifecycle/policy.js';
import { lifecycleSettingsSchema } from '../src/commands/lifecycle/settings.js';
import { decayBatchSize, tickDecider, type TickDecay } from '../src/commands/lifecycle/tick.js';
import { DomainError } from '../src/commands/errors.js';
import { deciderSpec } from './support/decider-spec.js';

const day = 86_400_000;
const { decay, atoms } = lifecycleSettingsSchema().parse({});
const asOf = Date.parse('2026-03-10T03:00:00Z');
const memory = (importance: number, accessCount = 0, lastAccessedAt: string | null = null) => ({ memoryId: 'm', importance, accessCount, lastAccessedAt });

describe('importance decay (the original rule, defaults 0.01/day, window 30 days, 10 accesses, x0.5)', () => {
  it('takes 1% a day from a memory nobody accessed, rounded to 4 decimals', () => {
    expect(decayOne(memory(0.5), decay, asOf)).toEqual({ memoryId: 'm', from: 0.5, to: 0.495, accessFrom: 0, accessTo: 0 });
  });
  it('decays a memory accessed inside the window less, by its access count, and halves the count', () => {
    const recent = new Date(asOf - 2 * day).toISOString();
    // 10 accesses: factor 1, recent 1: rate 0.01 * (1 - 0.5) = 0.005.
    expect(decayOne(memory(0.5, 10, recent), decay, asOf)).toMatchObject({ to: 0.4975, accessFrom: 10, accessTo: 5 });
    // 5 accesses: factor 0.5 -> rate 0.0075.
    expect(decayOne(memory(0.5, 5, recent), decay, asOf)).toMatchObject({ to: 0.4963, accessTo: 2 });
    // Accessed before the window: recent 0.5 -> 10 accesses give rate 0.0075.
    const old = new Date(asOf - 40 * day).toISOString();
    expect(decayOne(memory(0.5, 10, old), decay, asOf)).toMatchObject({ to: 0.4963, accessTo: 5 });
  });
  it('never falls below the floor, never raises what is below it, and leaves protected memories alone', () => {
    expect(decayOne(memory(0.0101), decay, asOf)).toMatchObject({ to: 0.01 });
    expect(decayOne(memory(0.01), decay, asOf)).toBeNull();
    expect(decayOne(memory(0.001, 3), decay, asOf)).toMatchObject({ from: 0.001, to: 0.001, accessTo: 1 });
    expect(decayOne(memory(0.9, 3), { ...decay, protectAbove: 0.8 }, asOf)).toBeNull();
    expect(decayOne(memory(1), decay, asOf)).toBeNull();
  });
  it('refuses settings out of range, naming the field', () => {
    expect(() => lifecycleSettingsSchema().parse({ decay: { rate: 2 } })).toThrow(/rate/);
    expect(() => lifecycleSettingsSchema().parse({ decay: { timeZone: 'Mars/Olympus' } })).toThrow(/time zone/);
    expect(() => lifecycleSettingsSchema().parse({ decay: { hour: 24 } })).toThrow(/hour/);
  });
});

describe('calendar in a time zone', () => {
  it('finds the tick hour of a date in the zone, across daylight saving changes', () => {
    expect(slotInstant('2026-01-15', 3, 'UTC').toISOString()).toBe('2026-01-15T03:00:00.000Z');
    expect(slotInstant('2026-01-15', 3, 'Europe/Paris').toISOString()).toBe('2026-01-15T02:00:00.000Z');
    expect(slotInstant('2026-07-15', 3, 'Europe/Paris').toISOString()).toBe('2026-07-15T01:00:00.000Z');
    expect(slotInstant('2026-03-08', 3, 'America/New_York').toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(slotInstant('2026-03-09', 3, 'America/New_York').toISOString()).toBe('2026-03-09T07:00:00.000Z');
    expect(slotInstant('2026-01-15', 3, 'Asia/Shanghai').toISOString()).toBe('2026-01-14T19:00:00.000Z');
    // 02:00 does not exist in New York on 2026-03-08: the tick lands an hour later on the clock, still that day.
    expect(localDate(slotInstant('2026-03-08', 2, 'America/New_York'), 'America/New_York')).toBe('2026-03-08');
  });
  it('lists the due dates after a moment, one per day, in order', () => {
    expect(localDate('2026-01-14T20:00:00Z', 'Asia/Shanghai')).toBe('2026-01-15');
    expect(nextDate('2026-02-28')).toBe('2026-03-01');
    expect(firstSlotDateAfter(new Date('2026-01-10T05:00:00Z'), 3, 'UTC')).toBe('2026-01-11');
    expect(firstSlotDateAfter(new Date('2026-01-10T02:00:00Z'), 3, 'UTC')).toBe('2026-01-10');
    expect(dueDates('2026-01-11', new Date('2026-01-13T03:00:00Z'), 3, 'UTC')).toEqual(['2026-01-11', '2026-01-12', '2026-01-13']);
    expect(dueDates('2026-01-11', new Date('2026-01-11T02:59:59Z'), 3, 'UTC')).toEqual([]);
  });
  it('reads UTC without a formatter exactly as the formatter reads Etc/UTC', () => {
    const instant = fc.integer({ min: Date.UTC(1970, 0, 1), max: Date.UTC(2200, 0, 1) });
    fc.assert(
      fc.property(instant, fc.integer({ min: 0, max: 23 }), (ms, hour) => {
        const date = localDate(new Date(ms), 'Etc/UTC');
        expect(localDate(new Date(ms), 'UTC')).toBe(date);
        expect(slotInstant(date, hour, 'UTC').toISOString()).toBe(slotInstant(date, hour, 'Etc/UTC').toISOString());
        expect(firstSlotDateAfter(new Date(ms), hour, 'UTC')).toBe(firstSlotDateAfter(new Date(ms), hour, 'Etc/UTC'));
      }),
    );
  });
});

const tickCommand = (data: Partial<TickDecay['data']> = {}): TickDecay => ({
  type: 'TickDecay',
  data: { date: '2026-03-10', asOf: new Date(asOf).toISOString(), lastTickedDate: null, memories: decayColumnsOf([]), atoms: [], decay, atomSettings: atoms, ...data },
  metadata: { commandId: 'tick-2026-03-10', now: new Date(asOf).toISOString(), actor: 'system:lifecycle' },
});

describe('tick decider', () => {
  const spec = deciderSpec(tickDecider);
  it('records the tick, then the decays in batches of 1,000, then the atom transitions', () => {
    const memories = Array.from({ length: 2500 }, (_, i) => ({ ...memory(0.5), memoryId: `m${String(i).padStart(4, '0')}` }));
    const events = tickDecider.decide(tickCommand({ memories: decayColumnsOf(memories) }), tickDecider.initialState());
    expect(events.map((e) => e.type)).toEqual(['DecayTicked', 'MemoryImportanceDecayed', 'MemoryImportanceDecayed', 'MemoryImportanceDecayed']);
    expect(events[0]).toMatchObject({ data: { date: '2026-03-10', affected: 2500, atomTransitions: 0, decayRate: 0.01, timeZone: 'UTC' } });
    const sizes = events.slice(1).map((e) => (e.type === 'MemoryImportanceDecayed' ? e.data.decays.length : 0));
    expect(sizes).toEqual([decayBatchSize, decayBatchSize, 500]);
  });
  it('decides over the columns of the memories what decayOne decides for each, in order', () => {
    const row = fc.record({
      memoryId: fc.string({ minLength: 1, maxLength: 8 }),
      importance: fc.oneof(fc.constantFrom(0, 0.01, 0.0101, 0.5, 0.8, 1), fc.double({ min: 0, max: 1, noNaN: true })),
      accessCount: fc.nat(30),
      lastAccessedAt: fc.option(fc.integer({ min: asOf - 60 * day, max: asOf }).map((t) => new Date(t).toISOString())),
    }).map((r) => ({ ...r })); // fast-check's records have no prototype; the read model's are plain objects
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), (memories) => {
        const events = tickDecider.decide(tickCommand({ memories: decayColumnsOf(memories) }), tickDecider.initialState());
        const decided = events.flatMap((e) => (e.type === 'MemoryImportanceDecayed' ? e.data.decays : []));
        expect(decided).toStrictEqual(memories.flatMap((m) => decayOne(m, decay, asOf) ?? []));
        expect(decayInputsOf(decayColumnsOf(memories))).toStrictEqual(memories);
      }),
    );
  });
  it('refuses columns of different lengths', () => {
    const memories = { ...decayColumnsOf([memory(0.5), memory(0.4)]), accessCount: [0] };
    expect(() => tickDecider.decide(tickCommand({ memories }), tickDecider.initialState())).toThrow(DomainError);
  });
  it('appends nothing for a date already ticked, or for a date at or before the last tick', () => {
    const ticked = tickDecider.decide(tickCommand(), tickDecider.initialState());
    spec.given(ticked).when(tickCommand({ memories: decayColumnsOf([memory(0.5)]) })).then([]);
    spec.given([]).when(tickCommand({ lastTickedDate: '2026-03-10', memories: decayColumnsOf([memory(0.5)]) })).then([]);
    spec.given([]).when(tickCommand({ lastTickedDate: '2026-03-11', memories: decayColumnsOf([memory(0.5)]) })).then([]);
  });
});

const atom = (over: Partial<AtomLifeInput> = {}): AtomLifeInput => ({
  atomId: 'a', status: 'active', decayType: 'linear', ttlDays: 100, expiresAt: new Date(asOf + 50 * day).toISOString(),
  touchedAt: new Date(asOf - 10 * day).toISOString(), ...over,
});

describe('atom lifecycle rules', () => {
  it('scores decay by type: linear, exponential (half-life TTL/2), step, none', () => {
    expect(decayScore({ decayType: 'linear', ttlDays: 10 }, 5)).toBeCloseTo(0.5);
    expect(decayScore({ decayType: 'exponential', ttlDays: 10 }, 5)).toBeCloseTo(0.5);
    expect(decayScore({ decayType: 'step', ttlDays: 10 }, 10)).toBe(1);
    expect(decayScore({ decayType: 'step', ttlDays: 10 }, 10.1)).toBe(0.05);
    expect(decayScore({ decayType: 'none', ttlDays: 10 }, 1000)).toBe(1);
  });
  it('makes an active atom dormant below the threshold, expires it at its expiry, forgets it after the delay', () => {
    expect(atomTick(atom(), atoms, asOf)).toEqual([]);
    expect(atomTick(atom({ touchedAt: new Date(asOf - 60 * day).toISOString() }), atoms, asOf).map((e) => e.data.to)).toEqual(['dormant']);
    const expired = atom({ expiresAt: new Date(asOf - day).toISOString() });
    expect(atomTick(expired, atoms, asOf).map((e) => [e.data.from, e.data.to])).toEqual([['active', 'expired']]);
    expect(atomTick({ ...expired, status: 'expired' }, atoms, asOf)).toEqual([]);
    const long = atom({ status: 'dormant', expiresAt: new Date(asOf - 8 * day).toISOString() });
    expect(atomTick(long, atoms, asOf).map((e) => [e.data.from, e.data.to])).toEqual([['dormant', 'expired'], ['expired', 'forgotten']]);
    expect(atomTick({ ...long, status: 'superseded' }, atoms, asOf).map((e) => e.data.to)).toEqual(['forgotten']);
    expect(atomTick(atom({ status: 'dormant', touchedAt: new Date(asOf - 90 * day).toISOString() }), atoms, asOf)).toEqual([]);
  });
  it('allows only the state machine\'s moves', () => {
    expect(() => transition('a', 'forgotten', 'active', 'x')).toThrow(DomainError);
    expect(() => transition('a', 'expired', 'active', 'x')).toThrow(/cannot go from expired to active/);
    expect(() => transition('a', 'superseded', 'dormant', 'x')).toThrow(DomainError);
    expect(transition('a', 'dormant', 'active', 'x').data).toMatchObject({ from: 'dormant', to: 'active' });
  });
  it('reinforces an accessed atom once a day and wakes a dormant one, never an expired one', () => {
    const next = { reinforcementCount: 1, expiresAt: new Date(asOf + 99 * day).toISOString() };
    const at = asOf;
    expect(accessReinforcement({ ...atom(), next }, atoms, at).map((e) => e.type)).toEqual(['AtomReinforced']);
    expect(accessReinforcement({ ...atom({ touchedAt: new Date(at - 3_600_000).toISOString() }), next }, atoms, at)).toEqual([]);
    const woken = accessReinforcement({ ...atom({ status: 'dormant', touchedAt: new Date(at - 3_600_000).toISOString() }), next }, atoms, at);
    expect(woken.map((e) => e.type)).toEqual(['AtomStateChanged', 'AtomReinforced']);
    expect(woken[1]).toMatchObject({ data: { byMemoryId: null, reason: 'accessed by recall', ...next } });
    expect(accessReinforcement({ ...atom({ status: 'expired' }), next }, atoms, at)).toEqual([]);
    expect(accessReinforcement({ ...atom({ expiresAt: new Date(at).toISOString() }), next }, atoms, at)).toEqual([]);
    expect(accessReinforcement({ ...atom(), next }, { ...atoms, reinforceOnAccess: false }, at)).toEqual([]);
  });
});

describe('below-threshold policy', () => {
  const old = new Date(asOf - 40 * day).toISOString();
  const young = new Date(asOf - 5 * day).toISOString();
  const memories = [
    { memoryId: 'low-old', importance: 0.04, createdAt: old },
    { memoryId: 'low-young', importance: 0.04, createdAt: young },
    { memoryId: 'high-old', importance: 0.3, createdAt: old },
  ];
  it('does nothing by default, archives or forgets old memories below the threshold when asked, with the reason', () => {
    expect(decidePolicy(memories, decay.policy, asOf)).toEqual([]);
    expect(decidePolicy(memories, { ...decay.policy, action: 'archive' }, asOf)).toEqual([
      { memoryId: 'low-old', action: 'archive', reason: 'importance 0.04 fell below 0.05 (decay policy)' },
    ]);
    expect(decidePolicy(memories, { action: 'forget', threshold: 0.5, minAgeDays: 0 }, asOf).map((a) => a.memoryId)).toEqual(['low-old', 'low-young', 'high-old']);
  });
});

describe('dormantAfterTtls', () => {
  it('is a lower bound: no atom scores below the dormancy line before that many TTLs (less a day)', () => {
    const types = ['linear', 'exponential', 'step', 'none'] as const;
    fc.assert(
      fc.property(fc.constantFrom(...types), fc.double({ min: 0, max: 1.2, noNaN: true }), fc.double({ min: 0, max: 400, noNaN: true }), fc.double({ min: 0, max: 800, noNaN: true }), (decayType, dormantBelow, ttlDays, days) => {
        const ttls = dormantAfterTtls(dormantBelow)[decayType];
        if (decayScore({ decayType, ttlDays }, days) >= dormantBelow) return;
        expect(ttls).not.toBeNull();
        expect(days).toBeGreaterThanOrEqual(Math.max(1, ttlDays) * (ttls ?? 0) - 1);
      }),
      { numRuns: 2000 },
    );
  });
});
