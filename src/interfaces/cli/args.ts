import { ValidationError } from '../../events/errors.js';
import type { Config } from '../../engine/config.js';
import type { MemoryEngine } from '../../engine/engine.js';
import type { Output } from './output.js';

/** One parsed command line: positionals in declared order, flags by their long name (`top-k`). */
export interface Invocation {
  readonly positionals: readonly string[];
  readonly flags: Readonly<Record<string, string | boolean | string[] | undefined>>;
  /** The configuration the engine was opened with (defaults such as the recall scope); absent when a test calls a handler. */
  readonly config?: Config;
}

/** Resolves to the exit code when it is not 0. */
export type Handler = (engine: MemoryEngine, inv: Invocation, out: Output) => Promise<void | number>;

/** A flag a command takes; `value` checks its syntax before the store is opened. */
export interface OptionSpec {
  /** Commander's flag syntax: `--session <id>`, `--explain`. */
  readonly flags: string;
  readonly description: string;
  /** May be given more than once; the values arrive as a list. */
  readonly multiple?: boolean;
  readonly value?: (flag: string, raw: string) => unknown;
}

export interface Command {
  readonly run: Handler;
  /** One line for `lmem --help` and the command's own help. */
  readonly summary: string;
  /** Commander's argument syntax, in order: `<text>`, `[n]`. */
  readonly args?: readonly string[];
  readonly options?: readonly OptionSpec[];
  /** Whether the command may create the data directory and the store (write commands); others need it to exist. */
  readonly creates?: boolean;
  /** Runs without opening a store when it returns a promise (null: open the store and `run`). */
  readonly bare?: (inv: Invocation, out: Output) => Promise<void | number> | null;
  /** Configuration from this command's own flags (serve's --host, --port), over the file and environment. */
  readonly overrides?: (inv: Pick<Invocation, 'flags'>) => Record<string, unknown>;
  /** Checks the configuration before the store opens, so a refused one creates no data dir. */
  readonly check?: (config: Config) => Promise<void> | void;
}

export const str = (inv: Pick<Invocation, 'flags'>, name: string): string | undefined => {
  const v = inv.flags[name];
  return typeof v === 'string' ? v : undefined;
};
export const list = (inv: Pick<Invocation, 'flags'>, name: string): string[] => {
  const v = inv.flags[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
};
export const required = (inv: Pick<Invocation, 'positionals'>, index: number, name: string): string => {
  const v = inv.positionals[index];
  if (v === undefined || v.length === 0) throw new ValidationError(name, 'is required');
  return v;
};

// Plain decimal notation only: no hex, exponent, sign-less dots, padding or Infinity.
const decimal = /^-?\d+(\.\d+)?$/;

/** A decimal number, strictly: `0x1`, `1e0`, ` 1` and `` are refused. */
export function parseDecimal(flag: string, raw: string): number {
  if (!decimal.test(raw)) throw new ValidationError(flag, `must be a decimal number, got "${raw}"`);
  return Number(raw);
}

/** A whole number at least `min` (and a safe integer). */
export function parseInteger(flag: string, raw: string, min: number): number {
  if (!/^-?\d+$/.test(raw)) throw new ValidationError(flag, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new ValidationError(flag, `is too large: ${raw}`);
  if (n < min) throw new ValidationError(flag, `must be at least ${min}, got ${raw}`);
  return n;
}

/** A log position: a non-negative whole number, kept as a bigint. */
export function parsePosition(flag: string, raw: string): bigint {
  if (!/^\d+$/.test(raw)) throw new ValidationError(flag, `must be a non-negative integer, got "${raw}"`);
  return BigInt(raw);
}

export const positiveInteger = (flag: string, raw: string): number => parseInteger(flag, raw, 1);
export const naturalNumber = (flag: string, raw: string): number => parseInteger(flag, raw, 0);

/** One of a fixed set of words. */
export const oneOf =
  <T extends string>(...words: readonly T[]) =>
  (flag: string, raw: string): T => {
    if (!(words as readonly string[]).includes(raw)) throw new ValidationError(flag, `must be ${words.join(', ')}; got "${raw}"`);
    return raw as T;
  };

export const number = (inv: Pick<Invocation, 'flags'>, name: string): number | undefined => {
  const v = str(inv, name);
  return v === undefined ? undefined : parseDecimal(name, v);
};
export const integer = (inv: Pick<Invocation, 'flags'>, name: string, min: number): number | undefined => {
  const v = str(inv, name);
  return v === undefined ? undefined : parseInteger(name, v, min);
};
export const position = (inv: Pick<Invocation, 'flags'>, name: string): bigint | undefined => {
  const v = str(inv, name);
  return v === undefined ? undefined : parsePosition(name, v);
};
