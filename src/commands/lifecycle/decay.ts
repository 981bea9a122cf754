import type { DecaySettings } from './settings.js';

const dayMs = 86_400_000;

/** What a decay tick reads of one memory. */
export interface DecayInput {
  readonly memoryId: string;
  readonly importance: number;
  readonly accessCount: number;
  readonly lastAccessedAt: string | null;
}

export interface DecayOutcome {
  readonly memoryId: string;
  readonly from: number;
  readonly to: number;
  readonly accessFrom: number;
  readonly accessTo: number;
}

/** Four decimals, as the original stores importance: a tick's values print the same in SQLite and JavaScript. */
export const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/**
 * One day of decay for one memory, as of `asOfMs` (the original's rule):
 *   recent = 1 when accessed inside the window, else 0.5
 *   accessFactor = min(1, accessCount / maxAccessCount)
 *   rate' = rate × (1 − 0.5 × accessFactor × recent)
 *   importance' = max(floor, round4(importance × (1 − rate')))     (never below the floor)
 *   accessCount' = floor(accessCount × accessCountMultiplier)
 * A memory at or above `protectAbove` is left alone; one at or below the floor keeps its importance.
 * Null when nothing changes.
 */
export function decayOne(memory: DecayInput, settings: DecaySettings, asOfMs: number): DecayOutcome | null {
  const { importance, accessCount } = memory;
  if (importance >= settings.protectAbove) return null;
  const accessed = memory.lastAccessedAt !== null ? Date.parse(memory.lastAccessedAt) : Number.NaN;
  const recent = accessed >= asOfMs - settings.accessWindowDays * dayMs ? 1 : 0.5;
  const accessFactor = Math.min(1, accessCount / Math.max(1, settings.maxAccessCount));
  const rate = Math.min(1, settings.rate) * (1 - 0.5 * accessFactor * recent);
  const to = importance <= settings.floor ? importance : Math.max(settings.floor, round4(importance * (1 - rate)));
  const accessTo = Math.floor(accessCount * settings.accessCountMultiplier);
  if (to === importance && accessTo === accessCount) return null;
  return { memoryId: memory.memoryId, from: importance, to, accessFrom: accessCount, accessTo };
}

/** The settings a tick records beside its decisions, flat, for the audit. */
export function decaySettingsRecord(settings: DecaySettings): Record<string, string | number> {
  return {
    rate: settings.rate,
    accessWindowDays: settings.accessWindowDays,
    maxAccessCount: settings.maxAccessCount,
    accessCountMultiplier: settings.accessCountMultiplier,
    floor: settings.floor,
    protectAbove: settings.protectAbove,
    hour: settings.hour,
    timeZone: settings.timeZone,
  };
}
