import { createHash } from 'node:crypto';
import { stampEvents, type EventBody } from '../commands/decider.js';
import type { Limits } from '../events/bounds.js';
import { parseOrThrow, ValidationError } from '../events/errors.js';
import type { EventLog, StreamAppend } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import type { MemoryDocument } from '../queries/documents.js';
import { csvExport, nativeExport } from '../replay/transfer/format.js';
import { parseImport } from '../replay/transfer/parse.js';
import { planImport, type ImportPlan } from '../replay/transfer/plan.js';
import type { Environment } from './clock.js';
import type { EmbeddingCache, EmbeddingProvider } from '../providers/embeddings/index.js';
import type { Indexes } from './indexes.js';
import type { Outputs } from './outputs.js';
import { commandMetadata } from './system-events.js';
import { importStreams } from './import-batch.js';
import { commandSchemasFor } from '../commands/memory/commands.js';
import type { CallContext, WriteReceipt } from './write-path.js';

type Write = (type: 'WriteMemory' | 'ArchiveMemory' | 'ForgetMemory', input: unknown, ctx: CallContext) => Promise<WriteReceipt>;

export interface TransferDeps {
  readonly log: EventLog;
  readonly env: Environment;
  readonly indexes: Pick<Indexes, 'documents' | 'atoms' | 'catchUp'>;
  readonly provider: EmbeddingProvider;
  readonly cache: EmbeddingCache;
  readonly write: Write;
  readonly defaultActor: string;
  /** Runs once the file is known to be valid, before the first write (the managed backup, ADR 29). */
  readonly beforeImport?: () => Promise<void>;
  readonly limits: Limits;
  /** Drops what the engine holds in memory (the recall cache) after the import's append. */
  readonly invalidate: () => void;
  /** The guard of files written outside the store (ADR 24). */
  readonly outputs: Pick<Outputs, 'writeFile'>;
}

export interface ImportInput {
  readonly content: string | Buffer;
  readonly format?: 'json' | 'csv';
  /** Where it came from (a file name), recorded on the import. */
  readonly source?: string;
}

export interface ImportReceipt {
  readonly importId: string;
  readonly memoryIds: string[];
  readonly duplicates: number;
}

export interface ExportOptions {
  readonly format?: 'json' | 'csv';
  readonly sessionId?: string;
  readonly userId?: string;
}

/** Preview counts: what an import would write, skip and refuse. */
export const previewOf = (plan: ImportPlan) => ({
  format: plan.format,
  new: plan.fresh.length,
  duplicate: plan.duplicates.length,
  invalid: plan.invalid.length,
  duplicates: plan.duplicates,
  invalidRows: plan.invalid,
});

/** Import and export of memories; an import is all or nothing (ADR 0018). */
export function createTransfer(deps: TransferDeps) {
  const { log, env, indexes } = deps;
  const plan = (input: ImportInput): ImportPlan =>
    planImport(parseImport(input.content, input.format, deps.limits), (texts) => indexes.documents.withTexts(texts));

  const record = (body: EventBody, actor: string, importId: string, suffix: string): Promise<unknown> =>
    log.append(streams.imports, stampEvents([body], { ...commandMetadata(env, actor, { correlationId: importId, causationId: importId }), commandId: `${importId}.${suffix}` }));

  /** Forgets what an import wrote, then records the rollback. */
  const rollBack = async (importId: string, written: readonly string[], reason: string, ctx: CallContext, actor: string): Promise<void> => {
    for (const memoryId of written) await deps.write('ForgetMemory', { memoryId, reason: 'import rolled back' }, ctx);
    await record({ type: 'MemoriesImportRolledBack', schemaVersion: 1, data: { importId, memoryIds: [...written], reason: reason.slice(0, 2000) } }, actor, importId, 'rolled-back');
  };

  /** A log without atomic multi-stream appends: stream by stream, forgetting what was written when one fails. */
  const appendOneByOne = async (appends: readonly StreamAppend[], importId: string): Promise<void> => {
    const written: string[] = [];
    try {
      for (const part of appends) {
        await log.append(part.streamId, part.events, part.expectedRevision ? { expectedRevision: part.expectedRevision } : {});
        const first = part.events[0];
        if (first?.type === 'MemoryWritten') written.push(first.data.memoryId);
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const actor = appends[0]?.events[0]?.metadata.actor ?? deps.defaultActor;
      await rollBack(importId, written, reason, { actor, correlationId: importId, causationId: importId }, actor);
      throw new Error(`import ${importId} rolled back after ${written.length} of ${appends.length - 2} memories: ${reason}`);
    }
  };

  return {
    /** Parses, validates and de-duplicates without writing anything. */
    previewImport: (input: ImportInput) => previewOf(plan(input)),

    /**
     * All or nothing (ADR 18, 23): every row is validated, bounded and checked as the WriteMemory
     * it becomes, and every event (the import's, each memory's with its graph links and atoms) is
     * decided first; then all of them go to the log in one atomic append. A failure before or in
     * it leaves no event of the import in the log. Only a log without atomic multi-stream appends
     * writes stream by stream, and forgets what it wrote when one fails.
     */
    async importMemories(input: ImportInput, ctx: CallContext = {}): Promise<ImportReceipt> {
      const p = plan(input);
      const bad = p.invalid[0];
      if (bad) {
        const more = p.invalid.length > 1 ? ` (and ${p.invalid.length - 1} more invalid rows; --preview lists them)` : '';
        throw new ValidationError(`row ${bad.row}.${bad.field}`, `${bad.message}${more}; nothing was imported`);
      }
      await deps.beforeImport?.();
      const importId = env.newId();
      const actor = ctx.actor ?? deps.defaultActor;
      const schema = commandSchemasFor(deps.limits).WriteMemory;
      const memories = p.fresh.map(({ row, data: { status, ...memory } }) => ({
        data: parseOrThrow(schema, { memoryId: env.newId(), ...memory }, `row ${row}`),
        archived: status === 'archived',
      }));
      const memoryIds = memories.map((m) => m.data.memoryId);
      const bytes = typeof input.content === 'string' ? Buffer.from(input.content) : input.content;
      const meta = (suffix?: string) => {
        const m = commandMetadata(env, actor, { correlationId: importId, causationId: importId });
        return suffix ? { ...m, commandId: `${importId}.${suffix}` } : m;
      };
      const started = stampEvents([{
        type: 'MemoriesImportStarted',
        schemaVersion: 1,
        data: {
          importId, memoryIds, source: input.source ?? 'api', format: p.format,
          sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.byteLength, duplicates: p.duplicates.length,
        },
      }], meta('started'));
      const perMemory = await importStreams(memories, { atoms: indexes.atoms, provider: deps.provider, cache: deps.cache, newId: env.newId, metadata: () => meta() });
      const completed = stampEvents([{ type: 'MemoriesImportCompleted', schemaVersion: 1, data: { importId, written: memoryIds.length } }], meta('completed'));
      const appends = [{ streamId: streams.imports, events: started }, ...perMemory, { streamId: streams.imports, events: completed }];
      try {
        await (log.appendAll ? log.appendAll(appends) : appendOneByOne(appends, importId));
      } finally {
        deps.invalidate();
        // Read-your-writes: the caller sees the memories in every read model when this returns.
        await indexes.catchUp();
      }
      return { importId, memoryIds, duplicates: p.duplicates.length };
    },

    /**
     * Compensates an import that a crash left unfinished (or undoes a completed one): forgets its
     * memories that are still live and records the rollback.
     */
    async rollbackImport(importId: string, ctx: CallContext = {}): Promise<{ importId: string; forgotten: string[] }> {
      const events = (await log.readStream(streams.imports)).filter((e) => 'importId' in e.data && e.data.importId === importId);
      const started = events.find((e) => e.type === 'MemoriesImportStarted');
      if (started?.type !== 'MemoriesImportStarted') throw new ValidationError('import-id', `no import ${importId} in the log`);
      if (events.some((e) => e.type === 'MemoriesImportRolledBack')) throw new ValidationError('import-id', `import ${importId} was already rolled back`);
      const live = started.data.memoryIds.filter((id) => {
        const doc = indexes.documents.get(id);
        return doc !== undefined && doc.status !== 'forgotten';
      });
      const actor = ctx.actor ?? deps.defaultActor;
      await rollBack(importId, live, 'rolled back on request', { actor, correlationId: importId, causationId: importId }, actor);
      return { importId, forgotten: live };
    },

    /** Live (active and archived) memories in a scope, oldest first, as native JSON or CSV. */
    exportMemories(options: ExportOptions = {}): string {
      const docs: MemoryDocument[] = indexes.documents
        .list({ limit: null, ...(options.sessionId ? { sessionId: options.sessionId } : {}), ...(options.userId ? { userId: options.userId } : {}) })
        .filter((d) => d.status !== 'forgotten')
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.memoryId.localeCompare(b.memoryId));
      return options.format === 'csv' ? csvExport(docs) : `${JSON.stringify(nativeExport(docs, env.now().toISOString()), null, 2)}\n`;
    },

    /** Writes an export to a file outside the store, through a temporary file; returns the real path and size. */
    async exportMemoriesToFile(target: string, options: ExportOptions & { force?: boolean } = {}): Promise<{ path: string; bytes: number }> {
      const content = this.exportMemories(options);
      const path = await deps.outputs.writeFile(target, content, { flag: 'out', force: options.force === true });
      return { path, bytes: Buffer.byteLength(content) };
    },
  };
}
