import { describe, expect, it } from 'vitest';
import { atomExtracted } from '../src/events/atom.js';
import { graphEntriesLinked } from '../src/events/graph.js';
import {
  atomKey,
  atomTtlDays,
  baseTtlDays,
  classifyClause,
  extractAtoms,
  reinforcementTtl,
  splitClauses,
  type AtomInput,
} from '../src/extraction/atoms.js';
import { canonicalValue, extractGraph, nodeKey, type GraphInput } from '../src/extraction/graph.js';

const now = '2026-01-01T00:00:00.000Z';
const ids = (n: number) => `atom-${n}`;
const input = (text: string, extra: Partial<AtomInput> = {}): AtomInput => ({
  memoryId: 'm1',
  text,
  importance: 0,
  sessionId: 's1',
  personaId: null,
  participants: [],
  keyFacts: [],
  ...extra,
});
const typeOf = (clause: string) => classifyClause(clause).atomType;
const day = 86_400_000;

describe('atom classification', () => {
  it.each([
    ['我明天打算去北京出差', 'plan'],
    ['下周准备搬家', 'plan'],
    ['Tomorrow I will fly to Tokyo', 'plan'],
    ['I am going to learn Rust next week', 'plan'],
    ['昨天我和同事李华在上海开会', 'episode'],
    ['2025年3月5日我们去了杭州', 'episode'],
    ['We went hiking last week', 'episode'],
    ['Yesterday I met Carol at the office', 'episode'],
    ['小明是我的好朋友', 'relation'],
    ['李华是她的同事', 'relation'],
    ['Alice is my sister', 'relation'],
    ['Bob is the boss of Carol', 'relation'],
    ['我喜欢吃四川火锅', 'preference'],
    ['他不喜欢香菜', 'preference'],
    ['I love green tea', 'preference'],
    ['Carol prefers window seats', 'preference'],
    ['我住在杭州', 'fact'],
    ['他在阿里巴巴工作', 'fact'],
    ['Bob works at Google', 'fact'],
    ['Dave has a cat', 'fact'],
    ['天气不错', 'unknown'],
    ['Hmm okay', 'unknown'],
  ] as const)('%s → %s', (clause, expected) => {
    expect(typeOf(clause)).toBe(expected);
  });

  it('gives stronger rules more confidence, and a clause without a rule 0.3', () => {
    expect(classifyClause('Dave has a cat').confidence).toBe(0.5);
    expect(classifyClause('Bob works at Google').confidence).toBe(0.75);
    expect(classifyClause('Yesterday I met Carol').confidence).toBe(0.9); // two episode rules
    expect(classifyClause('天气不错').confidence).toBe(0.3);
  });

  it('breaks ties towards time: a date with "will" is a plan', () => {
    expect(classifyClause('I will meet Bob on Monday')).toEqual({ atomType: 'plan', confidence: 0.7 });
  });
});

describe('extractAtoms', () => {
  it('splits Chinese and English sentences and clauses', () => {
    expect(splitClauses('我喜欢茶。明天去北京！真的？好；\nI like tea. Version 3.5 is out!Really? ok')).toEqual([
      '我喜欢茶',
      '明天去北京',
      '真的',
      '好',
      'I like tea',
      'Version 3.5 is out',
      'Really',
      'ok',
    ]);
  });

  it('makes one atom per distinct clause with ids, scope, TTL and expiry from the inputs', () => {
    const atoms = extractAtoms(input('我明天打算去北京出差。I love green tea! i LOVE green tea', { importance: 0.5, personaId: 'p' }), now, ids);
    expect(atoms).toEqual([
      {
        atomId: 'atom-0',
        memoryId: 'm1',
        atomType: 'plan',
        content: '我明天打算去北京出差',
        entities: ['北京'],
        importance: 0.5,
        confidence: 0.85,
        ttlDays: 3,
        expiresAt: '2026-01-04T00:00:00.000Z',
        decayType: 'step',
        sessionId: 's1',
        personaId: 'p',
      },
      {
        atomId: 'atom-1',
        memoryId: 'm1',
        atomType: 'preference',
        content: 'I love green tea',
        entities: [],
        importance: 0.5,
        confidence: 0.85,
        ttlDays: 90,
        expiresAt: '2026-04-01T00:00:00.000Z',
        decayType: 'linear',
        sessionId: 's1',
        personaId: 'p',
      },
    ]);
    for (const atom of atoms) expect(() => atomExtracted.schema().shape.data.parse(atom)).not.toThrow();
  });

  it('adds key facts as facts (0.9), and a clause equal to a key fact becomes that fact', () => {
    const atoms = extractAtoms(input('Bob works at Google. 天气不错', { keyFacts: ['bob works at google!', 'Bob is 30'] }), now, ids);
    expect(atoms.map((a) => [a.atomType, a.content, a.confidence])).toEqual([
      ['fact', 'Bob works at Google', 0.9],
      ['unknown', '天气不错', 0.3],
      ['fact', 'Bob is 30', 0.9],
    ]);
  });

  it('finds participants, capitalised names and Chinese nouns as entities', () => {
    const [en] = extractAtoms(input('Tomorrow I will meet bob and Carol Smith in New York', { participants: ['Bob', 'Zed'] }), now, ids);
    expect(en?.entities).toEqual(['Bob', 'Carol Smith', 'New York']);
    const [zh] = extractAtoms(input('昨天我和同事李华在上海开会', { participants: ['李华'] }), now, ids);
    expect(zh?.entities).toEqual(['李华', '同事', '上海']);
  });

  it('gives each type its base TTL and decay', () => {
    const cases = [
      ['我昨天去了公园', 'episode', 7, 'exponential'],
      ['我明天去公园', 'plan', 2, 'step'],
      ['我住在杭州', 'fact', 180, 'linear'],
      ['小明是我的朋友', 'relation', 90, 'linear'],
      ['我喜欢公园', 'preference', 60, 'linear'],
      ['嗯嗯', 'unknown', 30, 'linear'],
    ] as const;
    for (const [text, type, days, decay] of cases) {
      const [atom] = extractAtoms(input(text), now, ids);
      expect([atom?.atomType, atom?.ttlDays, atom?.decayType]).toEqual([type, days, decay]);
      expect(Date.parse(atom?.expiresAt ?? '') - Date.parse(now)).toBe(days * day);
    }
  });

  it('is pure: the same input gives the same atoms', () => {
    const text = '明天打算去南京看长江大桥。Alice is my sister. I went to Paris yesterday';
    const a = extractAtoms(input(text, { participants: ['Alice'], keyFacts: ['Alice lives in Paris'] }), now, ids);
    const b = extractAtoms(input(text, { participants: ['Alice'], keyFacts: ['Alice lives in Paris'] }), now, ids);
    expect(a).toEqual(b);
    expect(a.map((x) => x.atomId)).toEqual(['atom-0', 'atom-1', 'atom-2', 'atom-3']);
  });
});

describe('TTL formula: base × (1 + importance) × (1 + 0.5 × log2(1 + reinforcementCount))', () => {
  it('stretches with importance and reinforcement', () => {
    expect(atomTtlDays('fact', 0, 0)).toBe(180);
    expect(atomTtlDays('fact', 1, 0)).toBe(360);
    expect(atomTtlDays('plan', 0.5, 1)).toBe(2 * 1.5 * 1.5);
    expect(atomTtlDays('episode', 0, 3)).toBe(7 * 2);
    expect(atomTtlDays('preference', 0.25, 7)).toBeCloseTo(60 * 1.25 * 2.5, 10);
    for (const type of Object.keys(baseTtlDays) as (keyof typeof baseTtlDays)[]) {
      expect(atomTtlDays(type, 0.3, 2)).toBeCloseTo(baseTtlDays[type] * 1.3 * (1 + 0.5 * Math.log2(3)), 10);
    }
  });

  it('reinforcement counts up and expires later, measured from the reinforcement', () => {
    const later = '2026-01-02T00:00:00.000Z';
    const r = reinforcementTtl({ atomType: 'plan', importance: 0, reinforcementCount: 0, expiresAt: '2026-01-03T00:00:00.000Z' }, later);
    expect(r).toEqual({ reinforcementCount: 1, ttlDays: 3, expiresAt: '2026-01-05T00:00:00.000Z' });
    const keep = reinforcementTtl({ atomType: 'plan', importance: 0, reinforcementCount: 0, expiresAt: '2027-01-01T00:00:00.000Z' }, later);
    expect(keep.expiresAt).toBe('2027-01-01T00:00:00.000Z');
  });

  it('keys atoms by normalised content', () => {
    expect(atomKey('I love green tea!')).toBe(atomKey('i LOVE green-tea'));
    expect(atomKey('我喜欢茶。')).toBe(atomKey(' 我 喜欢 茶 '));
    expect(atomKey('我喜欢茶')).not.toBe(atomKey('我喜欢咖啡'));
  });
});

describe('extractGraph', () => {
  const graphInput: GraphInput = {
    memoryId: 'm1',
    text: 'Alice and  Bob\ntalked about tea',
    sessionId: 's1',
    personaId: null,
    participants: ['Bob', ' Alice ', 'alice'],
    topics: ['Tea', '中国'],
    keyFacts: ['Alice likes tea'],
  };

  it('makes canonical nodes, one relation per pair of node types, and one entry', () => {
    const g = extractGraph(graphInput);
    expect(g.nodes.map((n) => n.key)).toEqual(['fact:alice likes tea', 'person:alice', 'person:bob', 'topic:tea', 'topic:中国']);
    expect(g.edges.map((e) => `${e.source} -${e.relation}-> ${e.target}`)).toEqual([
      'fact:alice likes tea -topic-> topic:tea',
      'fact:alice likes tea -topic-> topic:中国',
      'person:alice -fact-> fact:alice likes tea',
      'person:alice -co_occurrence-> person:bob',
      'person:alice -participant-> topic:tea',
      'person:alice -participant-> topic:中国',
      'person:bob -fact-> fact:alice likes tea',
      'person:bob -participant-> topic:tea',
      'person:bob -participant-> topic:中国',
      'topic:tea -co_occurrence-> topic:中国',
    ]);
    expect(g.edges.every((e) => e.weight === 1)).toBe(true);
    expect(g.entries).toEqual([
      {
        entryId: 'm1#0',
        text: 'Alice and Bob talked about tea | Bob · Alice · alice · Tea · 中国 · Alice likes tea',
        nodeKeys: g.nodes.map((n) => n.key),
      },
    ]);
    expect(() => graphEntriesLinked.schema().shape.data.parse(g)).not.toThrow();
  });

  it('is deterministic and independent of label order', () => {
    const shuffled = { ...graphInput, participants: ['alice', 'Bob'], topics: ['中国', 'tea'] };
    expect(extractGraph(graphInput)).toEqual(extractGraph(graphInput));
    const { entries: _a, ...a } = extractGraph(graphInput);
    const { entries: _b, ...b } = extractGraph(shuffled);
    expect(a).toEqual(b);
  });

  it('still gives a memory without labels its entry, and keeps long keys short', () => {
    const g = extractGraph({ ...graphInput, participants: [], topics: [], keyFacts: [] });
    expect(g.nodes).toEqual([]);
    expect(g.edges).toEqual([]);
    expect(g.entries).toEqual([{ entryId: 'm1#0', text: 'Alice and Bob talked about tea', nodeKeys: [] }]);
    const long = nodeKey('fact', 'x'.repeat(400));
    expect(long.length).toBeLessThanOrEqual(200);
    expect(long).not.toBe(nodeKey('fact', `${'x'.repeat(399)}y`));
    expect(canonicalValue('  New\tYork ')).toBe('new york');
  });
});
