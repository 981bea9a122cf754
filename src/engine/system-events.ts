import type { EventLog, ExpectedRevision } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import { stampEvents, type CommandMetadata, type EventBody } from '../commands/decider.js';
import type { RebuildHooks } from '../projections/rebuild.js';
import type { Environment } from './clock.js';

/** Metadata for work the engine starts itself or on a caller's behalf: the one place ids and time are taken. */
export function commandMetadata(env: Environment, actor: string, ctx: { correlationId?: string; causationId?: string } = {}): CommandMetadata {
  return {
    commandId: env.newId(),
    now: env.now().toISOString(),
    actor,
    ...(ctx.correlationId ? { correlationId: ctx.correlationId } : {}),
    ...(ctx.causationId ? { causationId: ctx.causationId } : {}),
  };
}

/** Appends one event the engine decided by itself (no decider): rebuilds, repairs, fingerprints. */
export async function recordEvent(
  log: EventLog,
  env: Environment,
  actor: string,
  streamId: string,
  body: EventBody,
  expectedRevision: ExpectedRevision = 'any',
): Promise<void> {
  await log.append(streamId, stampEvents([body], commandMetadata(env, actor)), { expectedRevision });
}

/** Records the rebuilds the runner performs as system events. */
export function rebuildEventHooks(log: EventLog, env: Environment, actor: string): RebuildHooks {
  const record = (body: EventBody): Promise<void> => recordEvent(log, env, actor, streams.projections, body);
  return {
    started: (i) =>
      record({
        type: 'ProjectionRebuildStarted',
        schemaVersion: 1,
        data: { projection: i.projection, generation: i.generation, headPosition: i.headPosition.toString(), reason: i.reason },
      }),
    completed: (i) =>
      record({
        type: 'ProjectionRebuildCompleted',
        schemaVersion: 1,
        data: { projection: i.projection, generation: i.generation, position: i.position.toString(), digest: i.digest },
      }),
    failed: (i) =>
      record({
        type: 'ProjectionRebuildFailed',
        schemaVersion: 1,
        data: { projection: i.projection, generation: i.generation, error: i.error },
      }),
  };
}
