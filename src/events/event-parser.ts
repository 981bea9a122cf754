import { z } from 'zod';
import { eventSchemaOf, eventUnion, type DomainEvent } from './catalog.js';

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
