import { z } from 'zod';
import { domainEventSchema, type DomainEvent } from './catalog.js';

/**
 * Events at least this big (UTF-8 bytes of their texts, or characters of their stored JSON) are
 * parsed by their type's schema compiled with `z.compile` (same results, same errors): a tick's
 * batch of a thousand decays parses about four times faster, even the first time in a process.
 * Smaller events keep the union: compiling every type would cost each CLI start more than it saves.
 */
export const compiledFrom = 16 * 1024;

const members: ReadonlyMap<string, z.ZodType> = new Map(
  (domainEventSchema.options as readonly z.ZodObject[]).map((schema) => [(schema.shape.type as z.ZodLiteral<string>).value, schema]),
);
const compiled = new Map<string, z.ZodType>();

/** The schema to parse an event of `size` with: the union, or its type's compiled schema when big. */
export function eventSchemaFor(input: unknown, size: number): z.ZodType<DomainEvent> {
  if (size < compiledFrom) return domainEventSchema;
  const type = (input as { readonly type?: unknown } | null)?.type;
  const member = typeof type === 'string' ? members.get(type) : undefined;
  if (!member || typeof type !== 'string') return domainEventSchema;
  let schema = compiled.get(type);
  if (!schema) compiled.set(type, (schema = z.compile(member)));
  return schema as z.ZodType<DomainEvent>;
}
