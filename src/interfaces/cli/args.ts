import { ValidationError } from '../../events/errors.js';
import type { MemoryEngine } from '../../engine/engine.js';
import type { Output } from './output.js';

export interface Invocation {
  readonly positionals: readonly string[];
  readonly flags: Readonly<Record<string, string | boolean | string[] | undefined>>;
}

/** Resolves to the exit code when it is not 0. */
export type Handler = (engine: MemoryEngine, inv: Invocation, out: Output) => Promise<void | number>;

export const str = (inv: Invocation, name: string): string | undefined => {
  const v = inv.flags[name];
  return typeof v === 'string' ? v : undefined;
};
export const list = (inv: Invocation, name: string): string[] => {
  const v = inv.flags[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};
export const required = (inv: Invocation, index: number, name: string): string => {
  const v = inv.positionals[index];
  if (v === undefined || v.length === 0) throw new ValidationError(name, 'is required');
  return v;
};
export const number = (inv: Invocation, name: string): number | undefined => {
  const v = str(inv, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || Number.isNaN(n)) throw new ValidationError(name, `must be a number, got "${v}"`);
  return n;
};
export const position = (inv: Invocation, name: string): bigint | undefined => {
  const v = str(inv, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new ValidationError(name, `must be a non-negative integer, got "${v}"`);
  return BigInt(v);
};

export interface Command {
  readonly run: Handler;
  readonly usage: string;
  /** Runs without opening a store when it returns a promise (null: open the store and `run`). */
  readonly bare?: (inv: Invocation, out: Output) => Promise<void | number> | null;
}
