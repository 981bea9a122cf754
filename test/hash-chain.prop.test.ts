import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chainHash, genesisHash, type ChainRow } from '../src/events/log/hash-chain.js';

const text = fc.string({ unit: 'grapheme', maxLength: 40 });
const row: fc.Arbitrary<ChainRow> = fc.record({
  globalPosition: fc.integer({ min: 1, max: 1e9 }),
  streamId: text,
  streamRevision: fc.nat(),
  eventId: text,
  type: text,
  schemaVersion: fc.integer({ min: 1, max: 9 }),
  data: text,
  metadata: text,
});
const textFields = ['streamId', 'eventId', 'type', 'data', 'metadata'] as const;
const field = fc.constantFrom(...textFields);

describe('chain links', () => {
  it('change when one character of any column changes', () => {
    fc.assert(
      fc.property(row, field, fc.nat(), fc.string({ minLength: 1, maxLength: 1 }), (r, name, at, char) => {
        const value = r[name];
        const i = value.length === 0 ? 0 : at % value.length;
        const changed = value.slice(0, i) + char + value.slice(i + 1);
        fc.pre(changed !== value);
        expect(chainHash(genesisHash, { ...r, [name]: changed })).not.toBe(chainHash(genesisHash, r));
      }),
    );
  });

  it('change when text moves from one column to the next (the length prefixes)', () => {
    fc.assert(
      fc.property(row, fc.constantFrom(...textFields.slice(0, -1).map((f, i) => [f, textFields[i + 1] ?? f] as const)), (r, [from, to]) => {
        fc.pre(r[from].length > 0);
        const moved = { ...r, [from]: r[from].slice(0, -1), [to]: r[from].slice(-1) + r[to] };
        expect(chainHash(genesisHash, moved)).not.toBe(chainHash(genesisHash, r));
      }),
    );
  });

  it('depend on the link before', () => {
    fc.assert(
      fc.property(row, fc.stringMatching(/^[0-9a-f]{64}$/), (r, previous) => {
        fc.pre(previous !== genesisHash);
        expect(chainHash(previous, r)).not.toBe(chainHash(genesisHash, r));
      }),
    );
  });
});
