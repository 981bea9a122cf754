import type { DecaySettings } from './settings.js';

const dayMs = 86_400_000;

export interface PolicyInput {
  readonly memoryId: string;
  readonly importance: number;
  readonly createdAt: string;
}

export interface PolicyAction {
  readonly memoryId: string;
  readonly action: 'archive' | 'forget';
  readonly reason: string;
}

/**
 * The archive/forget policy below the threshold: an active memory whose importance decayed below
 * `threshold` and that is at least `minAgeDays` old is archived or forgotten, each with its reason.
 * A function of the state after the tick, so running it twice does nothing the second time.
 */
export function decidePolicy(memories: readonly PolicyInput[], settings: DecaySettings['policy'], asOfMs: number): PolicyAction[] {
  if (settings.action === 'none') return [];
  const action = settings.action;
  return memories
    .filter((m) => m.importance < settings.threshold && Date.parse(m.createdAt) <= asOfMs - settings.minAgeDays * dayMs)
    .map((m) => ({ memoryId: m.memoryId, action, reason: `importance ${m.importance} fell below ${settings.threshold} (decay policy)` }));
}
