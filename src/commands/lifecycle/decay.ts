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
  return decayValues(memory.memoryId, memory.importance, memory.accessCount, memory.lastAccessedAt, settings, asOfMs);
}

/** decayOne of a memory given field by field (a tick's inputs come as columns, no object per memory). */
export function decayValues(
  memoryId: string, importance: number, accessCount: number, lastAccessedAt: string | null, settings: DecaySettings, asOfMs: number,
): DecayOutcome | null {
  if (importance >= settings.protectAbove) return null;
  const accessed = lastAccessedAt !== null ? Date.parse(lastAccessedAt) : Number.NaN;
  const recent = accessed >= asOfMs - settings.accessWindowDays * dayMs ? 1 : 0.5;
  const accessFactor = Math.min(1, accessCount / Math.max(1, settings.maxAccessCount));
  const rate = Math.min(1, settings.rate) * (1 - 0.5 * accessFactor * recent);
  const to = importance <= settings.floor ? importance : Math.max(settings.floor, round4(importance * (1 - rate)));
  const accessTo = Math.floor(accessCount * settings.accessCountMultiplier);
  if (to === importance && accessTo === accessCount) return null;
  return { memoryId, from: importance, to, accessFrom: accessCount, accessTo };
}

/**
 * What a tick reads of every active memory, one column per field, index i of each being memory i.
 * A tick reads a hundred thousand memories: four arrays instead of as many row objects, which
 * lived through the whole decision and were most of what the collector copied (ADR 29, addendum 6).
 */
export interface DecayColumns {
  readonly memoryIds: readonly string[];
  readonly importance: readonly number[];
  readonly accessCount: readonly number[];
  readonly lastAccessedAt: readonly (string | null)[];
}

/** The memories of columns, in their order (the inverse of decayColumnsOf). */
export function decayInputsOf(columns: DecayColumns): DecayInput[] {
  return columns.memoryIds.map((memoryId, i) => ({
    memoryId, importance: columns.importance[i] as number, accessCount: columns.accessCount[i] as number, lastAccessedAt: columns.lastAccessedAt[i] ?? null,
  }));
}

/** The columns of a list of memories, in its order. */
export function decayColumnsOf(memories: readonly DecayInput[]): DecayColumns {
  return {
    memoryIds: memories.map((m) => m.memoryId),
    importance: memories.map((m) => m.importance),
    accessCount: memories.map((m) => m.accessCount),
    lastAccessedAt: memories.map((m) => m.lastAccessedAt),
  };
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
