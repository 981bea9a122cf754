import { z } from 'zod';
import { defineEvent } from './define.js';
import { optionalId } from './fields.js';
import { idSchema } from './metadata.js';

export const graphNodeSchema = z
  .object({ key: idSchema, nodeType: z.enum(['person', 'topic', 'fact']), value: z.string().min(1) })
  .strict();

export const graphEdgeSchema = z
  .object({
    source: idSchema,
    target: idSchema,
    relation: z.enum(['participant', 'topic', 'fact', 'co_occurrence']),
    weight: z.number().positive(),
  })
  .strict();

export const graphEntriesLinked = defineEvent(
  'GraphEntriesLinked',
  1,
  () => z.object({
    memoryId: idSchema,
    sessionId: optionalId,
    personaId: optionalId,
    entries: z.array(z.object({ entryId: idSchema, text: z.string().min(1), nodeKeys: z.array(idSchema) }).strict()),
    nodes: z.array(graphNodeSchema),
    edges: z.array(graphEdgeSchema),
  }),
);

export const graphEvents = [graphEntriesLinked] as const;
