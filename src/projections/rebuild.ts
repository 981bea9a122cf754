import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { createGenerationWriter, type GenerationWriter } from './apply.js';
import { projectionDigestAt } from './digest.js';
import { RebuildFailedError } from './failure.js';
import type { Generation, GenerationStore } from './generations.js';
import type { PageWriter } from './page-writer.js';
import type { Projection } from './projection.js';
import { dropGenerationTables } from './tx.js';
import { turn } from './turns.js';

export interface RebuildInfo {
  readonly projection: string;
  readonly generation: number;
}

/** Where a rebuild reports itself, so the engine can record it as events. */
export interface RebuildHooks {
  started?(info: RebuildInfo & { headPosition: bigint; reason: string; resumed: boolean }): Promise<void>;
  completed?(info: RebuildInfo & { position: bigint; digest: string }): Promise<void>;
  failed?(info: RebuildInfo & { error: string }): Promise<void>;
}

export interface RebuildResult extends RebuildInfo {
  readonly position: bigint;
  readonly digest: string;
  readonly resumed: boolean;
}

interface RebuildContext {
  readonly db: SqliteDatabase;
  readonly store: GenerationStore;
  readonly log: EventLog;
  readonly projection: Projection;
  /** Applies the log to the given writers until each reaches the head. */
  readonly drain: (writers: readonly PageWriter[]) => Promise<void>;
  readonly reason: string;
  readonly hooks?: RebuildHooks | undefined;
  readonly lockedHead?: () => bigint;
  /** Called with the generation a switch retired: its tables are dropped after, in slices (drop.ts). */
  readonly retired?: (projection: Projection, generation: number) => void;
  /** Start over: a shadow an older process left is dropped, not resumed (an erasure: it may hold erased text). */
  readonly fresh?: boolean | undefined;
}

const maxRounds = 1000;

interface Shadow {
  readonly ctx: RebuildContext;
  readonly gen: Generation;
  readonly writer: GenerationWriter;
  readonly info: RebuildInfo;
  readonly resumed: boolean;
}

/** The projection's shadow generation: the one a killed process left, or a new one. */
async function openShadow(ctx: RebuildContext): Promise<Shadow> {
  const { db, store, projection } = ctx;
  const left = store.building(projection.name);
  if (left && ctx.fresh) {
    db.transaction(() => {
      store.setStatus(left, 'failed');
      dropGenerationTables(db, projection, left.generation);
    }).immediate();
  }
  const existing = ctx.fresh ? undefined : left;
  const gen = existing ?? db.transaction(() => store.create(projection.name, projection.version, 'building')).immediate();
  const writer = createGenerationWriter(db, store, projection, gen);
  if (!existing) writer.init();
  const info = { projection: projection.name, generation: gen.generation };
  const resumed = existing !== undefined;
  await ctx.hooks?.started?.({ ...info, headPosition: await ctx.log.headPosition(), reason: ctx.reason, resumed });
  return { ctx, gen, writer, info, resumed };
}

async function finish(shadow: Shadow): Promise<RebuildResult> {
  const { position, digest } = await projectionDigestAt(shadow.ctx.db, shadow.ctx.projection, shadow.gen.generation);
  await shadow.ctx.hooks?.completed?.({ ...shadow.info, position, digest });
  return { ...shadow.info, position, digest, resumed: shadow.resumed };
}

async function fail(shadow: Shadow, error: unknown): Promise<void> {
  const { db, store, projection, hooks } = shadow.ctx;
  db.transaction(() => {
    store.setStatus(shadow.gen, 'failed');
    dropGenerationTables(db, projection, shadow.gen.generation);
  }).immediate();
  await hooks?.failed?.({ ...shadow.info, error: error instanceof Error ? error.message : String(error) });
}

/** Switches the shadow live in one transaction, unless the log moved past it (then: false, drain again). */
function switcher(shadow: Shadow): () => boolean {
  const { db, store, projection, lockedHead } = shadow.ctx;
  // Under the write lock no event can land between the last check and the switch.
  const trySwitch = db.transaction((): number | null | false => {
    if (lockedHead && shadow.writer.checkpoint() < lockedHead()) return false;
    const current = store.get(projection.name, shadow.gen.generation);
    if (!current) throw new Error(`generation ${shadow.gen.generation} of ${projection.name} vanished`);
    // Another process that resumed this shadow switched it (or a later one) first: retiring the live
    // generation now would drop the tables it serves from.
    if (current.status !== 'building') return null;
    const live = store.live(projection.name);
    // Its tables go after the switch, in slices: no reader resolves a retired generation's tables.
    if (live) store.setStatus(live, 'retired');
    store.setStatus(current, 'live');
    return live?.generation ?? null;
  });
  return () => {
    const retired = trySwitch.immediate();
    if (retired === false) return false;
    if (retired !== null) shadow.ctx.retired?.(projection, retired);
    return true;
  };
}

/**
 * Replays the whole log into a shadow generation of each projection while the live ones keep
 * serving, reading each page of the log once for all of them (`drainMany`), then switches each
 * in its own transaction. A shadow left by a killed process is resumed from its checkpoint.
 */
export async function rebuildProjections(
  contexts: readonly RebuildContext[],
  drainMany: (writers: readonly PageWriter[]) => Promise<void>,
  alongside: readonly PageWriter[] = [],
): Promise<RebuildResult[]> {
  const shadows: Shadow[] = [];
  const switched = new Set<Shadow>();
  try {
    for (const ctx of contexts) {
      // Each opening (tables created, an event appended and synced) on a turn of the loop of its own.
      await turn();
      shadows.push(await openShadow(ctx));
    }
    const switches = new Map(shadows.map((s) => [s, switcher(s)]));
    for (let round = 0; round < maxRounds && switched.size < shadows.length; round += 1) {
      const pending = shadows.filter((s) => !switched.has(s));
      // The other writers share the first replay only; they finish on their own.
      await drainMany([...pending.map((s) => s.writer), ...(round === 0 ? alongside : [])]);
      // A shadow that stopped at an event it cannot apply never goes live (ADR 23).
      for (const shadow of pending) {
        const failure = shadow.writer.failure();
        if (failure) throw new RebuildFailedError(shadow.info.projection, failure);
      }
      for (const shadow of pending) {
        // A switch commits at the log's durability (an fsync): one a turn. The switch itself checks the head.
        await turn();
        if (switches.get(shadow)?.()) switched.add(shadow);
      }
    }
    if (switched.size < shadows.length) throw new Error(`a rebuild could not catch up with the log in ${maxRounds} rounds`);
    const results: RebuildResult[] = [];
    for (const shadow of shadows) results.push(await finish(shadow));
    return results;
  } catch (error) {
    for (const shadow of shadows) if (!switched.has(shadow)) await fail(shadow, error);
    throw error;
  }
}

/** One projection's rebuild: the same replay and switch. */
export async function rebuildProjection(ctx: RebuildContext): Promise<RebuildResult> {
  const [result] = await rebuildProjections([ctx], ctx.drain);
  if (!result) throw new Error(`rebuild of ${ctx.projection.name} returned nothing`);
  return result;
}
