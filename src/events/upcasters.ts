import { z } from 'zod';
import { ValidationError, parseOrThrow } from './errors.js';
import { currentVersions } from './catalog.js';
import { idSchema } from './metadata.js';
import { lifecycleUpcasters } from './upcasters-lifecycle.js';

/** Turns the data of `type` at `fromVersion` into the data of the next version. */
export interface Upcaster {
  readonly type: string;
  readonly fromVersion: number;
  readonly schema: z.ZodType;
  readonly up: (data: never) => unknown;
}

export interface StoredShape {
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: unknown;
}

// MemoryWritten v1 (before sources, scope by user and the summarizer's fields existed).
const memoryWrittenV1 = z
  .object({
    memoryId: idSchema,
    content: z.string(),
    importance: z.number(),
    sessionId: idSchema.nullable(),
    personaId: idSchema.nullable(),
    tags: z.array(z.string()),
  })
  .strict();

// MessageRecorded and MessageCleaned v1 (before the turn's user was recorded with each message).
const messageRecordedV1 = z
  .object({
    sessionId: idSchema, messageId: idSchema, index: z.number(), role: z.string(), senderId: idSchema.nullable(),
    senderName: z.string().nullable(), content: z.string(), sentAt: z.string(),
  })
  .strict();
const messageCleanedV1 = z
  .object({ sessionId: idSchema, messageId: idSchema, index: z.number(), senderId: idSchema.nullable(), content: z.string() })
  .strict();
const withoutUser = <T extends object>(v1: T) => ({ ...v1, userId: null });

const upcasters: readonly Upcaster[] = [
  { type: 'MessageRecorded', fromVersion: 1, schema: messageRecordedV1, up: withoutUser },
  { type: 'MessageCleaned', fromVersion: 1, schema: messageCleanedV1, up: withoutUser },
  {
    type: 'MemoryWritten',
    fromVersion: 1,
    schema: memoryWrittenV1,
    up: (v1: z.infer<typeof memoryWrittenV1>) => ({
      memoryId: v1.memoryId,
      text: v1.content,
      importance: v1.importance,
      sessionId: v1.sessionId,
      personaId: v1.personaId,
      userId: null,
      topics: v1.tags,
      keyFacts: [],
      participants: [],
      sentiment: null,
      sources: [],
    }),
  },
  ...lifecycleUpcasters,
];

const registry = new Map(upcasters.map((u) => [`${u.type}@${u.fromVersion}`, u]));

/** Reads an old stored shape as the current one, one version step at a time, each step checked by zod. */
export function upcast(stored: StoredShape): StoredShape {
  const current = currentVersions.get(stored.type);
  if (current === undefined) throw new ValidationError('type', `unknown event type ${stored.type}`);
  if (stored.schemaVersion > current) {
    throw new ValidationError('schemaVersion', `${stored.type} v${stored.schemaVersion} is newer than this build (v${current})`);
  }
  let { schemaVersion, data } = stored;
  while (schemaVersion < current) {
    const step = registry.get(`${stored.type}@${schemaVersion}`);
    if (!step) throw new ValidationError('schemaVersion', `no upcaster for ${stored.type} v${schemaVersion}`);
    data = step.up(parseOrThrow(step.schema, data, 'data') as never);
    schemaVersion += 1;
  }
  return { type: stored.type, schemaVersion, data };
}
