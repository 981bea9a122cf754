import type { EventOf } from '../../events/catalog.js';
import type { Command, Decider, EventBody } from '../decider.js';
import { atomTick, type AtomLifeInput } from './atoms.js';
import { DomainError } from '../errors.js';
import { decaySettingsRecord, decayValues, type DecayColumns, type DecayOutcome } from './decay.js';
import type { AtomLifecycleSettings, DecaySettings } from './settings.js';

/** Memories per MemoryImportanceDecayed: one tick over 100k memories is 100 events. */
export const decayBatchSize = 1000;

/**
 * The decay tick of one date. The engine reads the memories and atoms from the read models
 * caught up to the log's head; the decision is a pure function of them, the date and the settings.
 */
export type TickDecay = Command<
  'TickDecay',
  {
    readonly date: string;
    readonly asOf: string;
    /** The latest date already ticked: a tick for that date or an earlier one changes nothing. */
    readonly lastTickedDate: string | null;
    /** The active memories, as columns of equal length. */
    readonly memories: DecayColumns;
    readonly atoms: readonly AtomLifeInput[];
    readonly decay: DecaySettings;
    readonly atomSettings: AtomLifecycleSettings;
  }
>;

export type TickEvent = EventOf<'DecayTicked' | 'MemoryImportanceDecayed' | 'AtomStateChanged'>;
type TickState = { readonly ticked: boolean };

/** The id of the tick of `date`; its events' ids derive from it, so a repeat can be told apart from a new tick. */
export const tickIdOf = (date: string): string => `tick-${date}`;

export function decideTick(command: TickDecay, state: TickState): EventBody<TickEvent>[] {
  const d = command.data;
  if (state.ticked || (d.lastTickedDate !== null && d.date <= d.lastTickedDate)) return [];
  const asOfMs = Date.parse(d.asOf);
  const tickId = tickIdOf(d.date);
  const { memoryIds, importance, accessCount, lastAccessedAt } = d.memories;
  const n = memoryIds.length;
  if (importance.length !== n || accessCount.length !== n || lastAccessedAt.length !== n) {
    throw new DomainError('invalid_tick', 'memories: the columns have different lengths');
  }
  // A loop, not flatMap: a tick decides over every active memory.
  const decays: DecayOutcome[] = [];
  for (let i = 0; i < n; i += 1) {
    const outcome = decayValues(memoryIds[i] as string, importance[i] as number, accessCount[i] as number, lastAccessedAt[i] ?? null, d.decay, asOfMs);
    if (outcome) decays.push(outcome);
  }
  const atomChanges = d.atoms.flatMap((a) => atomTick(a, d.atomSettings, asOfMs));
  const batches: EventBody<TickEvent>[] = [];
  for (let i = 0; i < decays.length; i += decayBatchSize) {
    batches.push({ type: 'MemoryImportanceDecayed', schemaVersion: 2, data: { tickId, decays: decays.slice(i, i + decayBatchSize) } });
  }
  const ticked: EventBody<TickEvent> = {
    type: 'DecayTicked',
    schemaVersion: 2,
    data: {
      tickId, date: d.date, timeZone: d.decay.timeZone, asOf: d.asOf, decayRate: d.decay.rate,
      affected: decays.length, atomTransitions: atomChanges.length, settings: decaySettingsRecord(d.decay),
    },
  };
  return [ticked, ...batches, ...atomChanges];
}

/** The stream of one date's tick: empty until the tick, then the tick and its effects. */
export const tickDecider: Decider<TickDecay, TickEvent, TickState> = {
  initialState: () => ({ ticked: false }),
  evolve: (state, event) => (event.type === 'DecayTicked' ? { ticked: true } : state),
  decide: decideTick,
};
