import { z } from 'zod';
import { eventSchemaOf, eventUnion, type DomainEvent } from './catalog.js';
import { decayBatchFastSchema } from './decay-batch.js';
import { parseOrThrow } from './errors.js';

/**
 * Events at least this big (UTF-8 bytes of their texts, or characters of their stored JSON) are
 * parsed by their type's schema compiled with `z.compile` (same results, same errors): a tick's
 * batch of a thousand decays parses about four times faster, even the first time in a process.
 * Smaller events keep the interpreter: compiling every type would cost each CLI start more than it saves.
 */
export const compiledFrom = 16 * 1024;

const compiled = new Map<string, z.ZodType>();

/**
 * The schema to parse an event of `size` with: its type's own schema (what the discriminated union
 * would pick, with the same results and errors, but only that type's is built), compiled when big;
 * the whole union for a type the catalog lacks, so that its error stays the union's.
 */
export function eventSchemaFor(input: unknown, size: number): z.ZodType<DomainEvent> {
  const type = (input as { readonly type?: unknown } | null)?.type;
  const member = typeof type === 'string' ? eventSchemaOf(type) : undefined;
  if (!member || typeof type !== 'string') return eventUnion() as z.ZodType<DomainEvent>;
  if (size < compiledFrom) return member as z.ZodType<DomainEvent>;
  let schema = compiled.get(type);
  if (!schema) compiled.set(type, (schema = z.compile(member)));
  return schema as z.ZodType<DomainEvent>;
}

/** Types whose events are checked first by a schema that keeps their lists instead of copying each item. */
const keepingSchemas: Readonly<Record<string, () => z.ZodType>> = { MemoryImportanceDecayed: decayBatchFastSchema };

/**
 * Parses an event of `size` as `eventSchemaFor`'s schema does. An event of a type with a keeping
 * schema goes through it first; what it does not pass is parsed by the type's schema, so results
 * and errors (named under `prefix`) are that schema's.
 */
export function parseEvent(input: unknown, size: number, prefix = ''): DomainEvent {
  const type = (input as { readonly type?: unknown } | null)?.type;
  const keeping = typeof type === 'string' ? keepingSchemas[type] : undefined;
  if (keeping) {
    const kept = keeping().safeParse(input);
    if (kept.success) return kept.data as DomainEvent;
  }
  return parseOrThrow(eventSchemaFor(input, size), input, prefix);
}
