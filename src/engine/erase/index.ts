import { z } from 'zod';
import type { ErasureCounts } from '../../events/erasure.js';
import { erasableSubjectKindSchema } from '../../events/erasure.js';
import { parseOrThrow, ValidationError } from '../../events/errors.js';
import { idSchema } from '../../events/metadata.js';
import { streams } from '../../events/streams.js';
import { createSerialExecutor } from '../../projections/vectors/executor.js';
import { commandMetadata } from '../system-events.js';
import type { CallContext } from '../write-path.js';
import { createErasureProcess } from './process.js';
import { erasedCacheKeys, reachOf, type ErasureReach } from './reach.js';
import { defaultErasureSteps, newErasureReport, type ErasureDeps, type ErasureReport, type ErasureStep } from './steps.js';

export { defaultErasureSteps, newErasureReport, type ErasureDeps, type ErasureStep } from './steps.js';
export type { ErasureReach } from './reach.js';

const subjectFields = { kind: erasableSubjectKindSchema, id: idSchema };
export const eraseInputSchema = z
  .object({ ...subjectFields, reason: z.string().min(1).max(500), force: z.boolean().default(false) })
  .strict();
export const erasePreviewSchema = z.object(subjectFields).strict();

export interface ErasureReceipt {
  readonly erasureId: string;
  readonly subject: { readonly kind: string; readonly id: string };
  /** Where SubjectErased (the key's destruction) stands in the log. */
  readonly position: bigint;
  readonly keyIds: readonly number[];
  readonly counts: ErasureCounts;
  /** The plan, every step of it done. */
  readonly steps: readonly string[];
  /** The subject had no data and `force` recorded the erasure anyway. */
  readonly forced: boolean;
  /** Embedding cache rows (keyed hash and vector of an erased text) deleted. */
  readonly embeddingsForgotten: number;
  /** False when another connection kept the WAL from being emptied; its old pages go at the next checkpoint. */
  readonly walTruncated: boolean;
  /** Whether the file was rewritten (VACUUM): only when it was not known to keep no old bytes in its pages (ADR 19). */
  readonly vacuumed: boolean;
}

/**
 * Crypto-shredding of a subject as a recorded process (ADR 19), one erasure at a time: `preview`
 * counts what it would reach and writes nothing; `erase` refuses a subject with no data unless
 * forced, then runs the steps; `resume` finishes what a killed process left (the engine calls it
 * on open, before it serves any read).
 */
export function createErasure(deps: ErasureDeps, steps: readonly ErasureStep[] = defaultErasureSteps) {
  const process = createErasureProcess(deps, steps);
  const serial = createSerialExecutor();

  const reach = async (subject: z.output<typeof erasePreviewSchema>): Promise<ErasureReach> => {
    await deps.indexes.catchUp();
    const sealed = await deps.log.sealedEvents(subject);
    return reachOf(subject, sealed, deps.cache.count(erasedCacheKeys(deps, sealed)));
  };

  const receipt = async (erasureId: string, forced: boolean, report: ErasureReport): Promise<ErasureReceipt> => {
    const events = await deps.log.readStream(streams.erasures);
    const erased = events.find((e) => e.type === 'SubjectErased' && e.data.erasureId === erasureId);
    if (erased?.type !== 'SubjectErased') throw new Error(`erasure ${erasureId} finished without SubjectErased`);
    const { subject, keyIds, counts } = erased.data;
    return {
      erasureId, subject, position: erased.globalPosition, keyIds, counts, steps: process.steps, forced,
      embeddingsForgotten: report.embeddingsForgotten, walTruncated: report.walTruncated ?? false, vacuumed: report.vacuumed,
    };
  };

  return {
    /** What erasing the subject would shred; nothing is written. */
    previewErasure: (input: unknown): Promise<ErasureReach> => serial.run(() => reach(parseOrThrow(erasePreviewSchema, input))),
    /** Erases `{ kind, id, reason, force? }`; a subject with no data is refused unless `force`. */
    eraseSubject: (input: unknown, ctx: CallContext = {}): Promise<ErasureReceipt> => {
      const { kind, id, reason, force } = parseOrThrow(eraseInputSchema, input);
      return serial.run(async () => {
        const found = await reach({ kind, id });
        if (found.events === 0 && !force) {
          throw new ValidationError(kind, `no data of ${kind} ${id} to erase: nothing is sealed under a key of it (never seen, or erased already); force records an erasure anyway`);
        }
        const meta = commandMetadata(deps.env, ctx.actor ?? deps.defaultActor, ctx);
        const report = newErasureReport();
        const forced = found.events === 0;
        await process.start({ erasureId: meta.commandId, subject: { kind, id }, reason, forced }, meta.actor, report);
        return receipt(meta.commandId, forced, report);
      });
    },
    /** Finishes every erasure a killed process left part-way; returns their ids. */
    resumeErasures: (): Promise<string[]> => serial.run(() => process.resume()),
  };
}

export type Erasure = ReturnType<typeof createErasure>;
