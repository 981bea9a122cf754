import { describe, expect, it } from 'vitest';
import { louvainCommunities, type WeightedTie } from '../src/queries/communities.js';

// Two triangles, A = a1 a2 a3 and B = b1 b2 b3, and a node x hanging between them.
const triangles: WeightedTie[] = [
  { source: 'a1', target: 'a2', weight: 1 },
  { source: 'a2', target: 'a3', weight: 1 },
  { source: 'a3', target: 'a1', weight: 1 },
  { source: 'b1', target: 'b2', weight: 1 },
  { source: 'b2', target: 'b3', weight: 1 },
  { source: 'b3', target: 'b1', weight: 1 },
];
const nodes = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'x'];
const groupOf = (ties: WeightedTie[], keys = nodes) => {
  const found = louvainCommunities(keys, ties);
  return (key: string) => found.byNode.get(key);
};

describe('Louvain communities (the original rules)', () => {
  it('given two ties between the same nodes, when grouping, then their weights add up', () => {
    // x -> a1 (0.8) and a1 -> x (0.8) on two relations outweigh x -> b1 (1.2) only when combined.
    const ties = [
      ...triangles,
      { source: 'x', target: 'a1', weight: 0.8 },
      { source: 'a1', target: 'x', weight: 0.8 },
      { source: 'x', target: 'b1', weight: 1.2 },
    ];
    const group = groupOf(ties);
    expect(group('x')).toBe(group('a1'));
    expect(group('x')).not.toBe(group('b1'));
    // Without the reverse tie, x goes to B: the combined weight is what decided it.
    const single = groupOf(ties.filter((t) => !(t.source === 'a1' && t.target === 'x')));
    expect(single('x')).toBe(single('b1'));
  });

  it('given parallel ties in the same direction, when grouping, then they count as one edge of their summed weight', () => {
    const parallel = [...triangles, { source: 'x', target: 'a1', weight: 0.5 }, { source: 'x', target: 'a1', weight: 0.5 }, { source: 'x', target: 'b1', weight: 0.9 }];
    const merged = [...triangles, { source: 'x', target: 'a1', weight: 1 }, { source: 'x', target: 'b1', weight: 0.9 }];
    const a = louvainCommunities(nodes, parallel);
    const b = louvainCommunities(nodes, merged);
    expect([...a.byNode]).toEqual([...b.byNode]);
    expect(a.modularity).toBeCloseTo(b.modularity, 12);
    expect(a.byNode.get('x')).toBe(a.byNode.get('a1'));
  });

  it('given self-loops, when grouping, then the grouping and modularity are as without them', () => {
    const ties = [...triangles, { source: 'x', target: 'a1', weight: 1 }, { source: 'x', target: 'b1', weight: 0.5 }];
    // A heavy self-loop counted in x's degree would push x out on its own.
    const loops = [...ties, { source: 'x', target: 'x', weight: 50 }, { source: 'b2', target: 'b2', weight: 7 }];
    const plain = louvainCommunities(nodes, ties);
    const looped = louvainCommunities(nodes, loops);
    expect([...looped.byNode]).toEqual([...plain.byNode]);
    expect(looped.modularity).toBeCloseTo(plain.modularity, 12);
    expect(looped.byNode.get('x')).toBe(looped.byNode.get('a1'));
  });

  it('given nodes without ties (or with only a self-loop), when grouping, then they share one separate community', () => {
    const keys = [...nodes, 'lonely1', 'lonely2', 'looped'];
    const found = louvainCommunities(keys, [...triangles, { source: 'x', target: 'a1', weight: 1 }, { source: 'looped', target: 'looped', weight: 3 }]);
    const isolates = found.isolates;
    expect(isolates).not.toBeNull();
    expect(['lonely1', 'lonely2', 'looped'].map((k) => found.byNode.get(k))).toEqual([isolates, isolates, isolates]);
    for (const key of nodes) expect(found.byNode.get(key)).not.toBe(isolates);
    expect(found.sizes[isolates ?? -1]).toBe(3);
    expect(found.sizes.reduce((a, b) => a + b, 0)).toBe(keys.length);
  });

  it('given a graph with every node tied, then there is no isolates group; an empty graph has one group of isolates', () => {
    expect(louvainCommunities(['a1', 'a2', 'a3'], triangles.slice(0, 3)).isolates).toBeNull();
    const empty = louvainCommunities(['p', 'q'], []);
    expect(empty.isolates).toBe(0);
    expect(empty.sizes).toEqual([2]);
  });

  it('given the same graph in another order, then the communities are the same (ids: largest first)', () => {
    const ties = [...triangles, { source: 'x', target: 'a1', weight: 1 }];
    const a = louvainCommunities(nodes, ties);
    const b = louvainCommunities([...nodes].reverse(), [...ties].reverse().map((t) => ({ source: t.target, target: t.source, weight: t.weight })));
    expect([...b.byNode].sort()).toEqual([...a.byNode].sort());
    expect(a.byNode.get('a1')).toBe(0);
    expect(a.sizes).toEqual([4, 3]);
  });
});
