import { z } from 'zod';
import { boundedText, defaultLimits, fixedLimits, type Limits } from '../../events/bounds.js';
import { messageRoleSchema } from '../../events/fields.js';
import { lazyPer } from '../../events/lazy.js';
import { idSchema, timestampSchema } from '../../events/metadata.js';

const who = {
  sessionId: idSchema,
  /** The host's user (private chat) or the account the bot serves; used by scope and whitelist. */
  userId: idSchema.nullable().default(null),
  personaId: idSchema.nullable().default(null),
  /** Group chats name every speaker in their summaries. */
  chatType: z.enum(['private', 'group']).default('private'),
};

/** The hooks' input schemas at the configured limits (ADR 23): every message content within `limits.messageBytes`. */
function createHookSchemas(limits: Limits) {
  const content = boundedText(z.string(), limits.messageBytes, 'messageBytes');
  /** The message of this turn, as the host sends it before or after the LLM call. */
  const hostTurnMessageSchema = z
    .object({
      /** The host's id for the message; made up when absent. */
      messageId: idSchema.optional(),
      content,
      senderId: idSchema.nullable().default(null),
      senderName: z.string().max(200).nullable().default(null),
      /** When the host sent it; defaults to now. Hosts replaying dated conversations pass their own. */
      sentAt: timestampSchema.optional(),
    })
    .strict();

  /** A message of the host's current history. */
  const hostMessageSchema = z
    .object({ messageId: idSchema.optional(), role: messageRoleSchema, content })
    .strict();

  /** What the host passes before it calls the LLM with a new user message. */
  const beforeLlmRequestSchema = z
    .object({
      ...who,
      message: hostTurnMessageSchema,
      /** The last message the host still has before this one (null: none); later stored messages are rolled back. */
      checkpointId: idSchema.nullable().optional(),
      /** The host's history before this message; stored messages it no longer has are rolled back. */
      history: z.array(hostMessageSchema).max(fixedLimits.historyMessages).optional(),
      topK: z.number().int().min(1).max(10).optional(),
      /** false records the message without recalling: a host importing past history wants no injection. */
      recall: z.boolean().default(true),
    })
    .strict();

  /** What the host passes after the LLM answered. */
  const afterLlmResponseSchema = z
    .object({
      ...who,
      message: hostTurnMessageSchema,
      /** The user message this reply answers; when the host rolled it back meanwhile, the reply is dropped. */
      inReplyTo: idSchema.optional(),
    })
    .strict();
  return { hostTurnMessageSchema, hostMessageSchema, beforeLlmRequestSchema, afterLlmResponseSchema };
}

/** The schemas for these limits, built once. */
export const hookSchemasFor: (limits: Limits) => ReturnType<typeof createHookSchemas> = lazyPer(createHookSchemas);

type HookSchemas = ReturnType<typeof createHookSchemas>;
/** The hooks' inputs under the default limits (the library's exports), built at first use. */
export const beforeLlmRequestSchema = (): HookSchemas['beforeLlmRequestSchema'] => hookSchemasFor(defaultLimits).beforeLlmRequestSchema;
export const afterLlmResponseSchema = (): HookSchemas['afterLlmResponseSchema'] => hookSchemasFor(defaultLimits).afterLlmResponseSchema;

export type HostTurnMessage = z.output<HookSchemas['hostTurnMessageSchema']>;
export type BeforeLlmRequest = z.output<HookSchemas['beforeLlmRequestSchema']>;
export type AfterLlmResponse = z.output<HookSchemas['afterLlmResponseSchema']>;
/** What a host passes to the hooks, typed from the schemas that check it (`z.input`: defaults optional). */
export type BeforeLlmRequestInput = z.input<HookSchemas['beforeLlmRequestSchema']>;
export type AfterLlmResponseInput = z.input<HookSchemas['afterLlmResponseSchema']>;

/** A content part the host adds to this call only; it never enters the stored history. */
export interface ExtraContentPart {
  readonly type: 'text';
  readonly text: string;
}
