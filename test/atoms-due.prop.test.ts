import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dormantAfterTtls } from '../src/commands/lifecycle/atoms.js';
import type { DomainEvent } from '../src/events/catalog.js';
import { atomsProjection } from '../src/projections/atoms.js';
import { generationTable } from '../src/projections/generations.js';
import { createAtomQueries } from '../src/queries/atoms.js';
import { testEventMetadata } from './support/events.js';
import { openTestStore } from './support/store.js';

/*
 * A tick reads the atoms that may be due (ADR 29). The dormancy part reads only atoms touched
 * before their type's shortest TTL could bring them to the line, compared as text (times may
 * carry any offset): it must find every active atom the full scan with the exact date test finds.
 */

const dayMs = 86_400_000;
const decayTypes = ['linear', 'exponential', 'step', 'none'] as const;
const start = Date.parse('2026-01-01T00:00:00Z');

/** An instant as the log may hold it: UTC, or the same instant on a clock from -12:00 to +14:00. */
const withOffset = (ms: number, minutes: number): string => {
  if (minutes === 0) return new Date(ms).toISOString();
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 19);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
};

const atom = fc.record({
  decayType: fc.constantFrom(...decayTypes),
  ttlDays: fc.oneof(fc.double({ min: 0.01, max: 3, noNaN: true }), fc.integer({ min: 1, max: 400 })),
  touchedHours: fc.integer({ min: 0, max: 24 * 120 }),
  offsetMinutes: fc.constantFrom(0, 0, -720, -330, 60, 345, 840),
});

describe('the atoms a tick reads', () => {
  it('include every active atom the full scan finds below the dormancy line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(atom, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 24 * 150 }), fc.constantFrom(0.05, 0.3, 0.5, 0.9), async (atoms, asOfHours, dormantBelow) => {
        const store = openTestStore([atomsProjection]);
        try {
          for (const [i, a] of atoms.entries()) {
            const at = start + a.touchedHours * 3_600_000;
            const event = {
              type: 'AtomExtracted', schemaVersion: 1,
              data: {
                atomId: `a${i}`, memoryId: `m${i}`, atomType: 'fact', content: `fact ${i}`, entities: [], importance: 0.5, confidence: 0.5,
                ttlDays: a.ttlDays, expiresAt: null, decayType: a.decayType, sessionId: null, personaId: null,
              },
              metadata: testEventMetadata({ occurredAt: withOffset(at, a.offsetMinutes) }),
            };
            await store.log.append(`atom-${i}`, [event as DomainEvent]);
          }
          await store.runner.catchUp();
          const generation = store.runner.status().find((s) => s.name === 'atoms')?.generation ?? 1;
          const table = (name: string) => generationTable(name, generation);
          const asOf = new Date(start + asOfHours * 3_600_000).toISOString();
          const rule = { forgetAfterDays: 7, dormantAfterTtls: dormantAfterTtls(dormantBelow) };
          const due = new Set(createAtomQueries(store.db, table).dueForTick(asOf, rule).map((a) => a.atomId));
          // The full scan: every active atom of a type with a line, the exact test on every row.
          const full = atoms.flatMap((a, i) => {
            const ttls = rule.dormantAfterTtls[a.decayType];
            if (ttls === null) return [];
            const row = store.db.prepare(`SELECT touched_at AS t, ttl_days AS ttl FROM ${table('memory_atoms')} WHERE atom_id = ?`).get(`a${i}`) as { t: string; ttl: number };
            const days = (Date.parse(asOf) - Date.parse(row.t)) / dayMs;
            return days >= Math.max(1, row.ttl) * ttls - 1 + 1e-9 ? [`a${i}`] : [];
          });
          for (const id of full) expect(due, `${id} of ${JSON.stringify(atoms[Number(id.slice(1))])} as of ${asOf}`).toContain(id);
        } finally {
          store.close();
        }
      }),
      {
        numRuns: 60,
        // The shortest-TTL atom on a clock 14 hours ahead, a quarter day past its line: its text reads later than the instant.
        examples: [[[{ decayType: 'step', ttlDays: 2, touchedHours: 0, offsetMinutes: 840 }], 30, 0.5]],
      },
    );
  }, 300_000);
});
