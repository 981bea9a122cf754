import { ValidationError } from '../events/errors.js';
import type { EventLog } from '../events/log/event-log.js';
import { readSessionEvents } from './session/read.js';
import { groupTurns, type ReplayTurn } from './session/turns.js';

export type { ReplayTurn } from './session/turns.js';

/** Where a replay stops: after a turn, or at a log position (inclusive). */
export type ReplayStop = { readonly turn: number } | { readonly position: bigint };

export interface SessionReplay {
  readonly sessionId: string;
  /** The last position replayed. */
  readonly position: bigint;
  /** How many turns the session has in all, beyond the stop too. */
  readonly totalTurns: number;
  readonly turns: ReplayTurn[];
}

/**
 * One session turn by turn from the log: messages, what each turn recalled and injected, the
 * memories its summaries wrote or took back, rollbacks and resets. Reads the log only.
 */
export async function replaySession(log: EventLog, sessionId: string, stop?: ReplayStop): Promise<SessionReplay> {
  if (!sessionId) throw new ValidationError('session', 'is required');
  const all = await readSessionEvents(log, sessionId);
  if (all.length === 0) throw new ValidationError('session', `no session ${sessionId} in the log`);
  const events = stop && 'position' in stop ? all.filter((e) => e.globalPosition <= stop.position) : all;
  const grouped = groupTurns(events);
  const totalTurns = groupTurns(all).filter((t) => t.turn > 0).length;
  const turns = stop && 'turn' in stop ? grouped.filter((t) => t.turn <= stop.turn) : grouped;
  return { sessionId, position: turns.at(-1)?.toPosition ?? 0n, totalTurns, turns };
}
