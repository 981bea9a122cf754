import { z } from 'zod';

/** Positions are bigints in the engine; on the wire they are numbers (far below 2^53 in practice), strings past that. */
export function toWire(value: unknown): unknown {
  if (typeof value === 'bigint') return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  if (Array.isArray(value)) return value.map(toWire);
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value)) {
    // Plain loops: a graph view walks tens of thousands of objects here on every answer.
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const v = toWire((value as Record<string, unknown>)[key]);
      // A caller's "__proto__" key stays a plain property, as Object.fromEntries would keep it.
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
    }
    return out;
  }
  return value;
}

/** A log position in a query string or body: a non-negative integer. */
export const positionParam = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
export const toPosition = (n: number | undefined): bigint | undefined => (n === undefined ? undefined : BigInt(n));

const position = z.union([z.number(), z.string()]).nullable();

export const memorySchema = z
  .looseObject({
    memoryId: z.string(),
    text: z.string(),
    status: z.enum(['active', 'archived', 'forgotten', 'erased']),
    importance: z.number(),
    sessionId: z.string().nullable(),
    personaId: z.string().nullable(),
    userId: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    topics: z.array(z.string()),
  })
  .meta({ id: 'Memory' });

export const receiptSchema = z
  .looseObject({ memoryId: z.string(), position, embeddingError: z.string().optional() })
  .meta({ id: 'WriteReceipt', description: 'The memory and the position of the last event written (null: nothing changed)' });

export const jobSchema = z
  .object({
    jobId: z.string(),
    kind: z.string(),
    actor: z.string(),
    state: z.enum(['running', 'succeeded', 'failed']),
    progress: z.object({ done: z.number(), total: z.number(), step: z.string().nullable() }),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
    result: z.unknown().optional(),
    error: z.object({ error: z.string(), field: z.string().nullable(), code: z.string() }).nullable(),
  })
  .meta({ id: 'Job', description: 'A long operation (rebuild, import, erase, export, verify) and its progress' });

/** Any JSON object, for answers whose shape is the engine's (status, replay, reports). */
export const objectSchema = z.looseObject({});
