/** The fields other tools use for a memory's text, in the order they are tried. */
export const externalTextFields = ['content', 'text', 'summary', 'memory'] as const;

const first = (item: Record<string, unknown>, keys: readonly string[]): unknown => {
  const key = keys.find((k) => item[k] !== undefined && item[k] !== null);
  return key === undefined ? undefined : item[key];
};

/**
 * Maps one entry of an external JSON export onto the import fields: the text from `content`,
 * `text`, `summary` or `memory` (a bare string is the text itself), ids in camel or snake case,
 * `tags` as topics. Other keys are ignored; what is missing takes the defaults.
 */
export function externalEntry(item: unknown): unknown {
  if (typeof item === 'string') return { text: item };
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
  const source = item as Record<string, unknown>;
  const text = first(source, externalTextFields.filter((k) => typeof source[k] === 'string' && (source[k] as string).trim() !== ''));
  const fields: Record<string, unknown> = {
    text: text ?? first(source, externalTextFields) ?? '',
    importance: source.importance,
    sessionId: first(source, ['sessionId', 'session_id']),
    personaId: first(source, ['personaId', 'persona_id']),
    userId: first(source, ['userId', 'user_id']),
    topics: first(source, ['topics', 'tags']),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}
