import type { SqliteDatabase } from '../../events/log/sqlite-database.js';
import type { RecordedEvent } from '../../events/log/event-log.js';
import type { Generation, GenerationStore, ProjectionFailure } from '../generations.js';
import { describeFailure, isEnvironmental } from '../failure.js';
import type { PageWriter } from '../page-writer.js';
import { emptyGeneration, type VectorGeneration, type VectorSource } from './apply.js';

export interface VectorRebuildOptions {
  /** Above this share of memories without an embedding the shadow does not switch. */
  readonly maxFailureRatio?: number;
  /** Events between two persisted checkpoints of the shadow, so a killed rebuild resumes. */
  readonly persistEvery?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: { checkpoint: bigint; head: bigint }) => void;
  /** Last word before the switch: the shadow's item ids checked against the documents, say. */
  readonly finalCheck?: (ids: ReadonlySet<string>) => string | null;
  /** Start over: a shadow an older process left is dropped, not resumed (an erasure: it may hold erased vectors). */
  readonly fresh?: boolean;
}

export interface VectorRebuildResult {
  readonly status: 'completed' | 'partial' | 'cancelled' | 'failed';
  readonly reason?: string;
  readonly generation: number;
  readonly resumed: boolean;
  readonly checkpoint: bigint;
  readonly size: number;
  readonly pending: number;
  readonly failureRatio: number;
}

export interface VectorRebuildContext {
  /** The projection's name in `projection_generations`. */
  readonly name: string;
  readonly db: SqliteDatabase;
  readonly generations: GenerationStore;
  readonly source: VectorSource;
  readonly load: (gen: Generation) => VectorGeneration;
  readonly drain: (gen: VectorGeneration, to?: bigint) => Promise<void>;
  /** Applies a page to a shadow that no search reads (no lock). */
  readonly applyPage: (gen: VectorGeneration, page: readonly RecordedEvent[]) => void;
  readonly persist: (gen: VectorGeneration) => Promise<void>;
  readonly headNow: () => Promise<bigint>;
  /** Waits for the live catch-up in flight; after it, `switchTo` runs with no await in between. */
  readonly liveIdle: () => Promise<void>;
  readonly switchTo: (gen: VectorGeneration) => number;
  readonly remove: (generation: number) => Promise<void>;
}

export const failureRatio = (gen: VectorGeneration): number => {
  const total = gen.index.size() + gen.pending.size;
  return total === 0 ? 0 : gen.pending.size / total;
};

/** A shadow index being built: fed pages by its own drain, or by a replay it shares (`writer`). */
export interface VectorShadow {
  readonly gen: VectorGeneration;
  readonly row: Generation;
  readonly resumed: boolean;
  /** Takes pages of a replay shared with other read models (each page decoded once for all). */
  readonly writer: PageWriter;
}

/** A shadow given up: marked failed, its files removed. */
function discard(ctx: VectorRebuildContext, row: Generation): void {
  ctx.db.transaction(() => ctx.generations.setStatus(row, 'failed')).immediate();
  // Not waited for: the generation is failed already, and its files are never read again.
  ctx.remove(row.generation).catch(() => undefined);
}

/** The shadow a killed rebuild left (unless `fresh`), or a new one. */
export function openVectorShadow(ctx: VectorRebuildContext, options: VectorRebuildOptions = {}): VectorShadow {
  const left = ctx.generations.building(ctx.name);
  if (left && options.fresh) discard(ctx, left);
  const existing = options.fresh ? undefined : left;
  const row = existing ?? ctx.db.transaction(() => ctx.generations.create(ctx.name, 1, 'building')).immediate();
  const gen = existing ? ctx.load(existing) : emptyGeneration(row.generation, ctx.source);
  let failure: ProjectionFailure | null = null;
  const writer: PageWriter = {
    checkpoint: () => gen.checkpoint,
    failure: () => failure,
    fail: (position, error) => void (failure ??= { position, error }),
    applyPage(page) {
      if (failure) return null;
      try {
        ctx.applyPage(gen, page);
        return gen.checkpoint;
      } catch (error) {
        if (isEnvironmental(error)) throw error;
        failure = { position: gen.checkpoint + 1n, error: describeFailure(error) };
        return null;
      }
    },
  };
  return { gen, row, resumed: existing !== undefined, writer };
}

/** A shadow for a shared replay: its `writer`, then `complete`, or `abandon` when the replay failed. */
export function sharedVectorRebuild(ctx: VectorRebuildContext, options: VectorRebuildOptions = {}) {
  const shadow = openVectorShadow(ctx, options);
  return {
    writer: shadow.writer,
    complete: () => completeVectorShadow(ctx, shadow, options),
    abandon: (): void => discard(ctx, shadow.row),
  };
}

/** Replays into a shadow index, persisting as it goes; switches only when few embeddings are missing. */
export function rebuildVectors(ctx: VectorRebuildContext, options: VectorRebuildOptions = {}): Promise<VectorRebuildResult> {
  return completeVectorShadow(ctx, openVectorShadow(ctx, options), options);
}

/** Drains the shadow to the head (from wherever a shared replay left it), then switches it live. */
export async function completeVectorShadow(ctx: VectorRebuildContext, shadow: VectorShadow, options: VectorRebuildOptions = {}): Promise<VectorRebuildResult> {
  const { name } = ctx;
  const { gen, row, resumed } = shadow;
  const result = (status: VectorRebuildResult['status']): VectorRebuildResult => ({
    status, generation: gen.generation, resumed, checkpoint: gen.checkpoint,
    size: gen.index.size(), pending: gen.pending.size, failureRatio: failureRatio(gen),
  });
  const abandon = (status: 'partial' | 'failed', reason: string): VectorRebuildResult => {
    discard(ctx, row);
    return { ...result(status), reason };
  };
  const failed = shadow.writer.failure();
  // An event the shadow cannot apply: it never goes live, the live index stays (ADR 23).
  if (failed) return abandon('failed', `stopped at log position ${failed.position}: ${failed.error}`);
  const step = BigInt(options.persistEvery ?? 50_000);
  // Where the shadow was last written: the switch writes it again only when it moved since. Written
  // every `step` events drained, not at every round: a snapshot is the whole index (100 MB at 100k
  // memories, seconds to write), and under a steady write load every round found new events, so a
  // shadow written at each round never got to switch (ADR 32, session 6).
  let written: bigint | null = null;
  let since = gen.checkpoint;
  for (;;) {
    const head = await ctx.headNow();
    while (gen.checkpoint < head) {
      if (options.signal?.aborted) {
        await ctx.persist(gen);
        return result('cancelled');
      }
      const to = gen.checkpoint + step < head ? gen.checkpoint + step : head;
      try {
        await ctx.drain(gen, to);
      } catch (error) {
        // An event the shadow cannot apply: it never goes live, the live index stays (ADR 23).
        return abandon('failed', `stopped after log position ${gen.checkpoint}: ${describeFailure(error)}`);
      }
      if (gen.checkpoint - since >= step) {
        await ctx.persist(gen);
        written = since = gen.checkpoint;
      }
      options.onProgress?.({ checkpoint: gen.checkpoint, head });
    }
    const ratio = failureRatio(gen);
    if (ratio > (options.maxFailureRatio ?? 0.02)) return abandon('partial', `${gen.pending.size} items without an embedding (${(ratio * 100).toFixed(1)}%)`);
    await ctx.liveIdle();
    if (gen.checkpoint < (await ctx.headNow())) continue;
    const problem = options.finalCheck?.(new Set([...gen.index.ids(), ...gen.pending.keys()])) ?? null;
    if (problem) return abandon('failed', problem);
    const previous = ctx.db.transaction(() => {
      const live = ctx.generations.live(name);
      if (live) ctx.generations.setStatus(live, 'retired');
      ctx.generations.setStatus(row, 'live');
      return ctx.switchTo(gen);
    }).immediate();
    if (written !== gen.checkpoint) await ctx.persist(gen);
    if (previous !== gen.generation) await ctx.remove(previous);
    return result('completed');
  }
}
