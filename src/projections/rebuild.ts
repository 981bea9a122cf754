import type { EventLog } from '../events/log/event-log.js';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { createGenerationWriter, type GenerationWriter } from './apply.js';
import { projectionDigest } from './digest.js';
import type { GenerationStore } from './generations.js';
import type { Projection } from './projection.js';
import { dropGenerationTables } from './tx.js';

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
  readonly drain: (writer: GenerationWriter) => Promise<bigint>;
  readonly reason: string;
  readonly hooks?: RebuildHooks | undefined;
  readonly lockedHead?: () => bigint;
}

const maxRounds = 1000;

/**
 * Replays the whole log into a shadow generation while the live one keeps serving, then switches
 * in one transaction. A shadow left by a killed process is resumed from its checkpoint.
 */
export async function rebuildProjection(ctx: RebuildContext): Promise<RebuildResult> {
  const { db, store, projection } = ctx;
  const existing = store.building(projection.name);
  const gen = existing ?? db.transaction(() => store.create(projection.name, projection.version, 'building')).immediate();
  const writer = createGenerationWriter(db, store, projection, gen);
  if (!existing) writer.init();
  const info = { projection: projection.name, generation: gen.generation };
  const resumed = existing !== undefined;
  await ctx.hooks?.started?.({ ...info, headPosition: await ctx.log.headPosition(), reason: ctx.reason, resumed });
  try {
    await catchUpAndSwitch(ctx, writer, gen.generation);
    const position = writer.checkpoint();
    const digest = projectionDigest(db, projection, gen.generation);
    await ctx.hooks?.completed?.({ ...info, position, digest });
    return { ...info, position, digest, resumed };
  } catch (error) {
    db.transaction(() => {
      store.setStatus(gen, 'failed');
      dropGenerationTables(db, projection, gen.generation);
    }).immediate();
    await ctx.hooks?.failed?.({ ...info, error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

async function catchUpAndSwitch(ctx: RebuildContext, writer: GenerationWriter, generation: number): Promise<void> {
  const { db, store, projection } = ctx;
  // Under the write lock no event can land between the last check and the switch.
  const trySwitch = db.transaction((): boolean => {
    if (ctx.lockedHead && writer.checkpoint() < ctx.lockedHead()) return false;
    const live = store.live(projection.name);
    if (live) {
      store.setStatus(live, 'retired');
      dropGenerationTables(db, projection, live.generation);
    }
    const shadow = store.get(projection.name, generation);
    if (!shadow) throw new Error(`generation ${generation} of ${projection.name} vanished`);
    store.setStatus(shadow, 'live');
    return true;
  });
  for (let round = 0; round < maxRounds; round += 1) {
    await ctx.drain(writer);
    if (trySwitch.immediate()) return;
  }
  throw new Error(`rebuild of ${projection.name} could not catch up with the log in ${maxRounds} rounds`);
}
