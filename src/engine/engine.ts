import { join } from 'node:path';
import type { z } from 'zod';
import { handleCommand } from '../commands/handler.js';
import { memoryCommandSchemas, type MemoryCommand } from '../commands/memory/commands.js';
import { memoryDecider } from '../commands/memory/decider.js';
import { parseOrThrow } from '../events/errors.js';
import type { EventLog } from '../events/log/event-log.js';
import { openDatabase } from '../events/log/sqlite-database.js';
import { createSqliteEventLog, sqliteLockedHead } from '../events/log/sqlite-event-log.js';
import { streams } from '../events/streams.js';
import { documentsProjection } from '../projections/documents.js';
import type { Projection } from '../projections/projection.js';
import { createProjectionRunner } from '../projections/runner.js';
import { createDocumentQueries } from '../queries/documents.js';
import { systemEnvironment, type Environment } from './clock.js';
import type { Config } from './config.js';
import { rebuildEventHooks } from './system-events.js';

/** The read models the engine keeps; each is rebuilt from the log alone. */
export const engineProjections: readonly Projection[] = [documentsProjection];

export interface CallContext {
  readonly actor?: string;
  readonly correlationId?: string;
  readonly causationId?: string;
}

export interface WriteReceipt {
  readonly memoryId: string;
  /** Global position of the last event written, or null when the command changed nothing. */
  readonly position: bigint | null;
}

/** Opens the embedded engine: one SQLite file with the log and every projection, caught up. */
export async function createMemoryEngine(config: Config, env: Environment = systemEnvironment) {
  const db = openDatabase(join(config.dataDir, config.databaseFile), { synchronous: config.sqlite.synchronous });
  const log: EventLog = createSqliteEventLog(db);
  const runner = createProjectionRunner({
    db,
    log,
    projections: engineProjections,
    pageSize: config.projections.pageSize,
    lockedHead: sqliteLockedHead(db),
    hooks: rebuildEventHooks(log, env, 'system:projections'),
  });
  await runner.catchUp();
  const documents = createDocumentQueries(db, () => runner.liveTable('documents', 'documents'));

  const run = async <T extends MemoryCommand['type']>(type: T, input: unknown, ctx: CallContext): Promise<WriteReceipt> => {
    const schema: z.ZodType<{ memoryId: string }> = memoryCommandSchemas[type];
    const data = parseOrThrow(schema, input);
    const metadata = {
      commandId: env.newId(),
      now: env.now().toISOString(),
      actor: ctx.actor ?? config.actor,
      ...(ctx.correlationId ? { correlationId: ctx.correlationId } : {}),
      ...(ctx.causationId ? { causationId: ctx.causationId } : {}),
    };
    const command = { type, data, metadata } as MemoryCommand;
    const result = await handleCommand(log, memoryDecider, streams.memory(data.memoryId), command);
    // Read-your-writes: the caller sees its memory in every read model when this returns.
    await runner.catchUp();
    return { memoryId: data.memoryId, position: result.lastPosition };
  };
  const withId = (input: unknown): unknown =>
    typeof input === 'object' && input !== null && !('memoryId' in input) ? { memoryId: env.newId(), ...input } : input;

  return {
    log,
    runner,
    documents,
    writeMemory: (input: unknown, ctx: CallContext = {}) => run('WriteMemory', withId(input), ctx),
    updateMemory: (memoryId: string, changes: unknown, ctx: CallContext = {}) => run('UpdateMemory', { memoryId, changes }, ctx),
    forgetMemory: (memoryId: string, reason?: string, ctx: CallContext = {}) => run('ForgetMemory', { memoryId, reason }, ctx),
    archiveMemory: (memoryId: string, reason?: string, ctx: CallContext = {}) => run('ArchiveMemory', { memoryId, reason }, ctx),
    restoreMemory: (memoryId: string, ctx: CallContext = {}) => run('RestoreMemory', { memoryId }, ctx),
    async status() {
      return { headPosition: await log.headPosition(), projections: runner.status() };
    },
    async close(): Promise<void> {
      await runner.stop();
      await log.close();
      db.close();
    },
  };
}

export type MemoryEngine = Awaited<ReturnType<typeof createMemoryEngine>>;
