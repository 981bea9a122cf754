/*
 * A question that names a person of the conversation is, most of the time, about what that person
 * said: "What did Caroline research?" is answered by Caroline's own words, which keyword search
 * cannot tell apart from the other speaker's turns that merely address her ("Thanks, Caroline!").
 * A memory's participants are recorded with it (the speaker of a turn, the people of a summary),
 * so the pool's memories whose participants the query names are scaled up. Pure: the query, the
 * candidates' participants and the settings decide everything.
 */

const escapeRegExp = (term: string): string => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const han = /\p{Script=Han}/u;

/** Whether `query` names `name`: as a whole word (no letter or digit around it), case aside; a Chinese name as a substring. */
export function names(query: string, name: string): boolean {
  const wanted = name.normalize('NFKC').trim();
  if (wanted.length === 0) return false;
  const text = query.normalize('NFKC');
  if (han.test(wanted)) return text.includes(wanted);
  return wordPattern(wanted).test(text);
}

// Compiling a pattern with Unicode classes cost more than the test itself: about 10 ms of one
// recall's turn of the event loop at 10k memories (issue 17). Kept per name, a bounded number.
const patterns = new Map<string, RegExp>();
function wordPattern(name: string): RegExp {
  let pattern = patterns.get(name);
  if (pattern) return pattern;
  if (patterns.size >= 4096) patterns.clear();
  pattern = new RegExp(String.raw`(?<![\p{L}\p{N}])${escapeRegExp(name)}(?![\p{L}\p{N}])`, 'iu');
  patterns.set(name, pattern);
  return pattern;
}

/**
 * The memories, of those given, with a participant the query names. Empty when the query names
 * every participant found, or none: a question about both people of a chat (or about neither)
 * prefers no one's words.
 */
export function namedMemories(query: string, participantsOf: ReadonlyMap<string, readonly string[]>): Set<string> {
  const all = new Set([...participantsOf.values()].flat());
  const named = new Set([...all].filter((name) => names(query, name)));
  if (named.size === 0 || named.size === all.size) return new Set();
  return new Set([...participantsOf].filter(([, people]) => people.some((p) => named.has(p))).map(([id]) => id));
}
