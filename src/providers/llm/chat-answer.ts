import { fieldPath } from '../../events/errors.js';
import { errorInBody, snippet, type Failure, type Outcome } from '../http/failures.js';
import { summarySchema, type Summary } from './provider.js';

/** An answer that may be mended by asking again (models do answer differently): retried. */
const malformed = (detail: string): Failure => ({ ok: false, retry: true, rateLimited: false, detail: `malformed answer: ${detail}` });

const fence = /^```(?:json)?\s*\n?([\s\S]*?)\n?\s*```$/i;

/** The model's text without a surrounding ```json fence. */
export function unfence(content: string): string {
  const trimmed = content.trim();
  return fence.exec(trimmed)?.[1]?.trim() ?? trimmed;
}

/**
 * Checks a 2xx chat-completions body: `choices[0].message.content` must be a JSON object (a ```json
 * fence is tolerated) that passes summarySchema. Failures name the offending field.
 */
export function parseChatAnswer(body: string, headers: Headers, nowMs: number): Outcome<Summary> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return malformed(`body is not JSON (${(error as Error).message}): ${snippet(body)}`);
  }
  const { choices, error } = (typeof json === 'object' && json !== null ? json : {}) as { choices?: unknown; error?: unknown };
  if (error !== undefined && choices === undefined) return errorInBody(error, headers, nowMs);
  const choice = Array.isArray(choices) ? (choices[0] as { message?: { content?: unknown }; finish_reason?: unknown } | undefined) : undefined;
  const content = choice?.message?.content;
  if (typeof content !== 'string') return malformed(`choices[0].message.content is not a string: ${snippet(body)}`);
  const cut = choice?.finish_reason === 'length' ? ' (the model stopped at its token limit)' : '';
  let summary: unknown;
  try {
    summary = JSON.parse(unfence(content));
  } catch (e) {
    return malformed(`the model's content is not JSON${cut} (${(e as Error).message}): ${snippet(content)}`);
  }
  const checked = summarySchema().safeParse(summary);
  if (checked.success) return { ok: true, value: checked.data };
  const problems = checked.error.issues.slice(0, 3).map((issue) => {
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
    return `${fieldPath(path)}: ${issue.message}`;
  });
  return malformed(`the model's JSON is not a valid summary: ${problems.join('; ')}`);
}
