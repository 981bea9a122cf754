import { z } from 'zod';
import { lazy } from './lazy.js';
import { memoryImportanceDecayed } from './memory.js';

const decayKeys = ['memoryId', 'from', 'to', 'accessFrom', 'accessTo'] as const;
const unit = (x: unknown): boolean => typeof x === 'number' && x >= 0 && x <= 1;
const count = (x: unknown): boolean => Number.isSafeInteger(x) && (x as number) >= 0;

/**
 * A decay exactly as `importanceDecaySchema`'s output would be: a plain object with its keys in
 * the schema's order and nothing else, each value within the schema's bounds. Parsing it would
 * only copy it, so it can be kept as it is (stricter than the schema: anything else is parsed).
 */
function isParsedDecay(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false;
  // The keys in order without an array of them (a tick checks a hundred thousand); with
  // Object.prototype as the prototype, for...in gives exactly Object.keys.
  let at = 0;
  for (const key in value) if (key !== decayKeys[at++]) return false;
  if (at !== decayKeys.length) return false;
  const d = value as Record<(typeof decayKeys)[number], unknown>;
  return typeof d.memoryId === 'string' && d.memoryId.length >= 1 && d.memoryId.length <= 200 && unit(d.from) && unit(d.to) && count(d.accessFrom) && count(d.accessTo);
}

/**
 * A tick's MemoryImportanceDecayed carries a thousand decays: the schema copied each one (a
 * hundred thousand objects a tick, most of its garbage). This schema checks the envelope as the
 * event's does and the decays in one loop, keeping the array. When it fails, the caller parses
 * with the event's own schema, whose error names the field.
 */
export const decayBatchFastSchema = lazy((): z.ZodType => {
  const full = memoryImportanceDecayed.schema();
  const decays = z.custom<unknown[]>((v) => Array.isArray(v) && v.length >= 1 && v.length <= 1000 && v.every(isParsedDecay));
  return full.extend({ data: full.shape.data.extend({ decays }) });
});
