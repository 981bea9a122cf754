import { z } from 'zod';
import type { BeforeLlmRequestInput } from '../../engine/inputs.js';
import type { ExtraContentPart } from '../../engine/hooks/schemas.js';

const part = z.looseObject({ type: z.string(), text: z.string().optional() });
const message = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(part), z.null()]).optional(),
});

/** The OpenAI chat completions request, as far as the proxy reads it; every other field is forwarded as is. */
export const chatRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    messages: z.array(message).min(1).max(100_000),
    stream: z.boolean().optional(),
    user: z.string().min(1).max(200).optional(),
  })
  .meta({ id: 'ChatCompletionRequest', description: 'An OpenAI chat completions request; fields beyond these are forwarded unchanged' });

export type ChatRequest = z.output<typeof chatRequestSchema>;
type Message = ChatRequest['messages'][number];

/** The text of a message: its string content, or its text parts joined. */
export function textOf(m: Message): string {
  if (typeof m.content === 'string') return m.content;
  return (m.content ?? []).flatMap((p) => (p.type === 'text' && typeof p.text === 'string' ? [p.text] : [])).join('\n');
}

const hostRole = (role: string): 'user' | 'assistant' | 'system' | null =>
  role === 'user' || role === 'assistant' ? role : role === 'system' || role === 'developer' ? 'system' : null;

/** The hook's request for the last user message, with the messages before it as the host's history. */
export function beforeRequestOf(body: ChatRequest, who: { sessionId: string; userId: string | null }): BeforeLlmRequestInput | null {
  const last = body.messages.at(-1);
  if (!last || last.role !== 'user') return null;
  const history = body.messages.slice(0, -1).flatMap((m) => {
    const role = hostRole(m.role);
    return role ? [{ role, content: textOf(m) }] : [];
  });
  return { sessionId: who.sessionId, userId: who.userId, message: { content: textOf(last) }, history };
}

/**
 * The request forwarded upstream: the recalled memories become extra text parts of the last user
 * message, for this call only; the client's messages, and the stored history, never hold them.
 */
export function withExtraParts(body: ChatRequest, extra: readonly ExtraContentPart[]): ChatRequest {
  if (extra.length === 0) return body;
  const messages = [...body.messages];
  const last = messages.pop() as Message;
  const parts = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...(last.content ?? [])];
  messages.push({ ...last, content: [...parts, ...extra.map((p) => ({ type: 'text', text: p.text }))] });
  return { ...body, messages };
}

/**
 * Reads an OpenAI SSE stream as it passes: returns a feeder for each chunk and the reply's text so
 * far (the `delta.content` of choice 0).
 */
export function streamedReply() {
  let pending = '';
  let text = '';
  return {
    feed(chunk: string): void {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const data = /^data:\s?(.*)$/.exec(line.trim())?.[1];
        if (!data || data === '[DONE]') continue;
        try {
          const delta = (JSON.parse(data) as { choices?: { index?: number; delta?: { content?: unknown } }[] }).choices?.find((c) => (c.index ?? 0) === 0)?.delta?.content;
          if (typeof delta === 'string') text += delta;
        } catch {
          // A line that is not JSON is forwarded and otherwise ignored.
        }
      }
    },
    text: () => text,
  };
}

/** The reply text of a non-streamed completion. */
export function replyOf(body: unknown): string {
  const content = (body as { choices?: { message?: { content?: unknown } }[] } | null)?.choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : '';
}
