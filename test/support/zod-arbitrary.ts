import fc from 'fast-check';
import type { z } from 'zod';

/*
 * Values valid for a zod (v4) schema, read from its definition: what the event catalog uses
 * (objects, arrays, strings with lengths, regexes and ISO times, numbers with bounds, enums,
 * literals, unions, records, optional/nullable/default). Refinements are checked by the caller's
 * filter. Strings come in every script and at extreme lengths within their bounds; short ones
 * often come from a small pool, so ids collide and events meet the same memory, session, atom.
 */

interface Def {
  type: string;
  checks?: { _zod: { def: Record<string, unknown> } }[];
  [key: string]: unknown;
}
const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;
const checksOf = (def: Def) => (def.checks ?? []).map((c) => c._zod.def);

const pool = ['a', 'b', 'm1', 'm2', 's1', 'u1', 'p1', '1', 'tea', '茶'];
const char = (from: number, to: number) => fc.integer({ min: from, max: to }).map((c) => String.fromCodePoint(c));
const scripts = [
  char(0x20, 0x7e), // ASCII
  char(0x4e00, 0x9fff), // CJK
  char(0x1f300, 0x1faff), // emoji
  char(0x0400, 0x04ff), // Cyrillic
  char(0x0600, 0x06ff), // Arabic
  fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u3000'), // whitespace only
];
const anyChar = fc.oneof(...scripts);

/** A string of `min`..`max` UTF-16 units: short texts of mixed scripts, or one unit repeated to a long length. */
function text(min: number, max: number, long: number): fc.Arbitrary<string> {
  const cap = Math.min(max, long);
  const mixed = fc.array(anyChar, { minLength: min, maxLength: Math.min(cap, min + 40) }).map((cs) => cs.join(''));
  // One character repeated (an emoji takes two units): the count keeps it within the bounds.
  const repeated = anyChar.chain((c) => {
    const most = Math.max(1, Math.floor(cap / c.length));
    return fc.integer({ min: Math.min(most, Math.max(1, Math.ceil(min / c.length))), max: most }).map((n) => c.repeat(n));
  });
  const inRange = (s: string) => s.length >= min && s.length <= max;
  const pooled = fc.constantFrom(...pool.filter(inRange));
  const options = [mixed, mixed, ...(cap >= 1 ? [repeated] : []), ...(pool.some(inRange) ? [pooled, pooled, pooled] : [])];
  return fc.oneof(...options).filter(inRange);
}

function stringOf(def: Def, long: number): fc.Arbitrary<string> {
  let min = 0;
  let max = 100_000;
  for (const c of checksOf(def)) {
    if (c.check === 'min_length') min = Math.max(min, c.minimum as number);
    if (c.check === 'max_length') max = Math.min(max, c.maximum as number);
    if (c.check === 'length_equals') min = max = c.length as number;
  }
  const format = (def.format ?? checksOf(def).find((c) => c.check === 'string_format')?.format) as string | undefined;
  if (format === 'datetime') return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  const pattern = (def.pattern ?? checksOf(def).find((c) => c.format === 'regex')?.pattern) as RegExp | undefined;
  if (pattern) return fc.stringMatching(pattern).filter((s) => s.length >= min && s.length <= max);
  return text(min, max, long);
}

function numberOf(def: Def): fc.Arbitrary<number> {
  let min = -1e9;
  let max = 1e9;
  let int = false;
  for (const c of checksOf(def)) {
    if (c.check === 'number_format' && String(c.format).includes('int')) int = true;
    if (c.check === 'greater_than') min = Math.max(min, (c.value as number) + (c.inclusive ? 0 : int ? 1 : 1e-9));
    if (c.check === 'less_than') max = Math.min(max, (c.value as number) - (c.inclusive ? 0 : int ? 1 : 1e-9));
  }
  const edges = fc.constantFrom(min, max);
  return fc.oneof(edges, int ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true }));
}

/** Values of `schema`; strings at most `long` units unless their own bound is lower. */
export function arbitraryOf(schema: z.ZodType, long = 20_000): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const inner = (s: unknown) => arbitraryOf(s as z.ZodType, long);
  switch (def.type) {
    case 'string':
      return stringOf(def, long);
    case 'number':
      return numberOf(def);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, unknown>));
    case 'optional':
      return fc.option(inner(def.innerType), { nil: undefined });
    case 'nullable':
      return fc.option(inner(def.innerType), { nil: null });
    case 'default':
    case 'readonly':
    case 'catch':
      return inner(def.innerType);
    case 'pipe':
      return inner(def.in);
    case 'union':
      return fc.oneof(...(def.options as unknown[]).map(inner));
    case 'array': {
      let minLength = 0;
      let maxLength = 6;
      for (const c of checksOf(def)) {
        if (c.check === 'min_length') minLength = c.minimum as number;
        if (c.check === 'max_length') maxLength = Math.min(maxLength, c.maximum as number);
      }
      return fc.array(inner(def.element), { minLength, maxLength: Math.max(minLength, maxLength) });
    }
    case 'record':
      return fc.dictionary(arbitraryOf(def.keyType as z.ZodType, 40) as fc.Arbitrary<string>, inner(def.valueType), { maxKeys: 4 });
    case 'object': {
      const shape = def.shape as Record<string, unknown>;
      const keys = Object.keys(shape);
      const optional = keys.filter((k) => ['optional', 'default'].includes(defOf(shape[k]).type));
      return fc.record(Object.fromEntries(keys.map((k) => [k, inner(shape[k])])), { requiredKeys: keys.filter((k) => !optional.includes(k)) });
    }
    default:
      throw new Error(`no arbitrary for a zod ${def.type}`);
  }
}
