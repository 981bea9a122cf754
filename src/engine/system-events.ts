import type { EventLog } from '../events/log/event-log.js';
import { streams } from '../events/streams.js';
import { stampEvents, type CommandMetadata, type EventBody } from '../commands/decider.js';
import type { RebuildHooks } from '../projections/rebuild.js';
import type { Environment } from './clock.js';

/** Records the rebuilds the runner performs as system events. */
export function rebuildEventHooks(log: EventLog, env: Environment, actor: string): RebuildHooks {
  const record = async (body: EventBody): Promise<void> => {
    const meta: CommandMetadata = { commandId: env.newId(), now: env.now().toISOString(), actor };
    await log.append(streams.projections, stampEvents([body], meta));
  };
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
