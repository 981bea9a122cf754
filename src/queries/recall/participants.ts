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

// Each name's pattern is compiled once: a recall checks every participant of its pool (no global flag, so no state).
const patterns = new Map<string, RegExp>();
function wordPattern(wanted: string): RegExp {
  let pattern = patterns.get(wanted);
  if (!pattern) {
    if (patterns.size >= 4096) patterns.clear();
    patterns.set(wanted, (pattern = new RegExp(String.raw`(?<![\p{L}\p{N}])${escapeRegExp(wanted)}(?![\p{L}\p{N}])`, 'iu')));
  }
  return pattern;
}

/** Whether `query` names `name`: as a whole word (no letter or digit around it), case aside; a Chinese name as a substring. */
export function names(query: string, name: string): boolean {
  return namesIn(query.normalize('NFKC'), null, name);
}

const ascii = /^[\x00-\x7f]*$/;

/**
 * `names` over a query already normalized (NFKC), with its lower case when it is ASCII: a recall
 * checks one query against every participant of its pool. Between ASCII strings case folding is
 * lower-casing, so an ASCII name the lower-cased query does not contain cannot match.
 */
function namesIn(text: string, lowerAscii: string | null, name: string): boolean {
  const wanted = name.normalize('NFKC').trim();
  if (wanted.length === 0) return false;
  if (han.test(wanted)) return text.includes(wanted);
  if (lowerAscii !== null && ascii.test(wanted) && !lowerAscii.includes(wanted.toLowerCase())) return false;
  return wordPattern(wanted).test(text);
}

/**
 * The memories, of those given, with a participant the query names. Empty when the query names
 * every participant found, or none: a question about both people of a chat (or about neither)
 * prefers no one's words.
 */
export function namedMemories(query: string, participantsOf: ReadonlyMap<string, readonly string[]>): Set<string> {
  const all = new Set([...participantsOf.values()].flat());
  const text = query.normalize('NFKC');
  const lower = ascii.test(text) ? text.toLowerCase() : null;
  const named = new Set([...all].filter((name) => namesIn(text, lower, name)));
  if (named.size === 0 || named.size === all.size) return new Set();
  return new Set([...participantsOf].filter(([, people]) => people.some((p) => named.has(p))).map(([id]) => id));
}
