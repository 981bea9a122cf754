import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/events/log/sqlite-database.js';
import { createGenerationStore } from '../src/projections/generations.js';
import type { VectorGeneration } from '../src/projections/vectors/apply.js';
import { rebuildVectors, type VectorRebuildContext } from '../src/projections/vectors/vector-rebuild.js';

/*
 * A vector shadow catching up under a steady write load (ADR 32, session 6): at 100k memories a
 * snapshot takes seconds, and the recall load appended access batches meanwhile. A shadow that
 * wrote its snapshot after every round of its catch-up found new events after each one and never
 * switched. Here the log's head moves by one event whenever a snapshot is written (the appends
 * that land while it is written); the drain and the snapshot are scripted, the generations are a
 * real SQLite table.
 */
function steadyWrites(head: bigint, persistEvery: number) {
  const db = openDatabase(':memory:');
  const generations = createGenerationStore(db);
  let at = head;
  const persisted: bigint[] = [];
  let live: VectorGeneration | null = null;
  const ctx: VectorRebuildContext = {
    name: 'vectors', db, generations,
    source: { fingerprint: 'f', dimension: 4, keyOf: (t) => t, lookup: () => undefined },
    load: () => { throw new Error('nothing to resume'); },
    drain: async (gen, to) => { gen.checkpoint = to ?? at; },
    applyPage: () => undefined,
    persist: async (gen) => {
      persisted.push(gen.checkpoint);
      if (persisted.length > 1_000) throw new Error('the shadow never stopped writing snapshots');
      at += 1n;
    },
    headNow: async () => at,
    liveIdle: async () => undefined,
    switchTo: (gen) => { live = gen; return gen.generation; },
    remove: async () => undefined,
  };
  return { ctx, persisted, live: () => live, head: () => at, persistEvery };
}

describe('a vector rebuild under a steady write load', () => {
  it('given appends during every snapshot, when the shadow catches up, then it switches, writing a snapshot every persistEvery events and once after the switch', async () => {
    const run = steadyWrites(120_000n, 50_000);
    const result = await rebuildVectors(run.ctx, { persistEvery: run.persistEvery });
    expect(result.status).toBe('completed');
    expect(run.live()).not.toBeNull();
    // Two full steps (50k, 100k), then the tail caught up without a snapshot, then the one after the switch.
    expect(run.persisted.slice(0, 2)).toEqual([50_000n, 100_000n]);
    expect(run.persisted).toHaveLength(3);
    expect(result.checkpoint).toBe(run.persisted.at(-1));
  });

  it('given a shadow already at the head, then it switches and writes its snapshot once', async () => {
    const run = steadyWrites(0n, 50_000);
    const result = await rebuildVectors(run.ctx, { persistEvery: run.persistEvery });
    expect(result.status).toBe('completed');
    expect(run.persisted).toEqual([0n]);
  });
});
