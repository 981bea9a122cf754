import { slotInstant } from '../../commands/lifecycle/calendar.js';
import { dormantAfterTtls } from '../../commands/lifecycle/atoms.js';
import { decidePolicy } from '../../commands/lifecycle/policy.js';
import type { LifecycleSettings } from '../../commands/lifecycle/settings.js';
import { tickDecider, tickIdOf, type TickDecay } from '../../commands/lifecycle/tick.js';
import { handleCommand } from '../../commands/handler.js';
import type { EventLog } from '../../events/log/event-log.js';
import { streams } from '../../events/streams.js';
import type { Indexes } from '../indexes.js';
import type { CallContext, WriteReceipt } from '../write-path.js';

export interface TickReceipt {
  readonly date: string;
  readonly tickId: string;
  readonly asOf: string;
  /** False when the date had been ticked already (or an earlier tick came later): nothing was appended. */
  readonly ticked: boolean;
  readonly position: bigint | null;
  readonly decayed: number;
  readonly atomTransitions: number;
  /** Memories the below-threshold policy archived or forgot after the tick. */
  readonly policy: number;
}

export interface TickDeps {
  readonly log: EventLog;
  readonly indexes: Indexes;
  readonly settings: LifecycleSettings;
  /** The engine's write path, for the policy's archive and forget commands. */
  readonly write: (type: 'ArchiveMemory' | 'ForgetMemory', input: unknown, ctx: CallContext) => Promise<WriteReceipt>;
  /** Called after the tick changed the read models (the recall cache). */
  readonly changed: () => void;
}

export const lifecycleActor = 'system:lifecycle';

/**
 * Runs decay ticks: reads the read models at the log's head, lets the tick decider decide, and
 * appends the tick and all its effects in one append to the date's own stream (all or nothing: a
 * crash leaves the whole tick or none of it). The tick's ids and times derive from its date, so
 * the same store ticked late (catch-up) or on time writes the same events.
 */
export function createTicker(deps: TickDeps) {
  const { indexes } = deps;
  const decay = deps.settings.decay;
  const { dormantBelow, forgetAfterDays } = deps.settings.atoms;
  const atomRule = { forgetAfterDays, dormantAfterTtls: dormantAfterTtls(dormantBelow) };

  /** The below-threshold policy, on the state after the tick; a memory it already moved is not active any more. */
  const applyPolicy = async (tickId: string, asOf: string): Promise<number> => {
    if (decay.policy.action === 'none') return 0;
    const actions = decidePolicy(indexes.lifecycle.activeBelow(asOf, decay.policy.threshold), decay.policy, Date.parse(asOf));
    const ctx = { actor: lifecycleActor, correlationId: tickId, causationId: tickId };
    for (const a of actions) await deps.write(a.action === 'archive' ? 'ArchiveMemory' : 'ForgetMemory', { memoryId: a.memoryId, reason: a.reason }, ctx);
    return actions.length;
  };

  /** The tick of `date`, as of that date's tick hour in the configured zone. */
  async function tickDate(date: string): Promise<TickReceipt> {
    await indexes.catchUp();
    const asOf = slotInstant(date, decay.hour, decay.timeZone).toISOString();
    const tickId = tickIdOf(date);
    const command: TickDecay = {
      type: 'TickDecay',
      data: {
        date,
        asOf,
        lastTickedDate: indexes.lifecycle.lastTick()?.date ?? null,
        memories: indexes.lifecycle.decayInputs(asOf),
        atoms: indexes.atoms.dueForTick(asOf, atomRule),
        decay,
        atomSettings: deps.settings.atoms,
      },
      metadata: { commandId: tickId, now: asOf, actor: lifecycleActor, correlationId: tickId, causationId: tickId },
    };
    const result = await handleCommand(deps.log, tickDecider, streams.decayTick(date), command);
    const ticked = result.events[0];
    if (ticked) {
      await indexes.catchUp();
      deps.changed();
    }
    const summary = ticked?.type === 'DecayTicked' ? ticked.data : null;
    const policy = summary ? await applyPolicy(tickId, asOf) : 0;
    return {
      date, tickId, asOf, ticked: summary !== null, position: result.lastPosition,
      decayed: summary?.affected ?? 0, atomTransitions: summary?.atomTransitions ?? 0, policy,
    };
  }

  return { tickDate };
}

export type Ticker = ReturnType<typeof createTicker>;
