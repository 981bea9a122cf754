import type { EventData } from '../events/catalog.js';
import { atomKey } from '../projections/atoms.js';
import { allOf, han, someOf, widthAt } from '../projections/text/chars.js';
import { tagWords } from '../projections/text/jieba.js';
import { capitalisedRuns, splitClauses } from './scan.js';

/**
 * Rule-based atom extraction for Chinese and English. Pure: the time comes in as `now`, the ids
 * from `ids`; the same input always gives the same atoms. The engine appends the result as
 * AtomExtracted events in the same append as the memory's MemoryWritten.
 */

export { atomKey, splitClauses };

export type AtomData = EventData<'AtomExtracted'>;
export type AtomType = AtomData['atomType'];
type RuleType = Exclude<AtomType, 'unknown'>;

export interface AtomInput {
  readonly memoryId: string;
  readonly text: string;
  readonly importance: number;
  readonly sessionId: string | null;
  readonly personaId: string | null;
  readonly participants: readonly string[];
  readonly keyFacts: readonly string[];
}

/** Days an atom lives before reinforcement or importance stretch it. */
export const baseTtlDays: Readonly<Record<AtomType, number>> = { episode: 7, plan: 2, fact: 180, relation: 90, preference: 60, unknown: 30 };

/** Plans and episodes are about a moment and fade fast (exponential); lasting knowledge fades linearly. */
export const decayTypes: Readonly<Record<AtomType, AtomData['decayType']>> = {
  episode: 'exponential',
  plan: 'exponential',
  fact: 'linear',
  relation: 'linear',
  preference: 'linear',
  unknown: 'linear',
};

/**
 * ttlDays = base(type) × (1 + importance) × (1 + 0.5 × log2(1 + reinforcementCount))
 * so importance 1 doubles the TTL, and each doubling of reinforcements adds half the base again.
 */
export function atomTtlDays(type: AtomType, importance: number, reinforcementCount = 0): number {
  return baseTtlDays[type] * (1 + importance) * (1 + 0.5 * Math.log2(1 + reinforcementCount));
}

/** `now` plus a TTL in days, as an ISO instant (UTC, milliseconds). */
export function expiresAtFrom(now: string, ttlDays: number): string {
  return new Date(Date.parse(now) + Math.round(ttlDays * 86_400_000)).toISOString();
}

/** What an AtomReinforced carries: the next count and an expiry from `now` that never comes earlier. */
export function reinforcementTtl(
  atom: { readonly atomType: AtomType; readonly importance: number; readonly reinforcementCount: number; readonly expiresAt: string | null },
  now: string,
): { reinforcementCount: number; ttlDays: number; expiresAt: string } {
  const reinforcementCount = atom.reinforcementCount + 1;
  const ttlDays = atomTtlDays(atom.atomType, atom.importance, reinforcementCount);
  const fresh = expiresAtFrom(now, ttlDays);
  const expiresAt = atom.expiresAt !== null && Date.parse(atom.expiresAt) > Date.parse(fresh) ? new Date(atom.expiresAt).toISOString() : fresh;
  return { reinforcementCount, ttlDays, expiresAt };
}

type Rule = readonly [RegExp, number];

const weekday = 'monday|tuesday|wednesday|thursday|friday|saturday|sunday';
const zhKin = '朋友|同事|妈妈|母亲|爸爸|父亲|老板|上司|领导|老婆|妻子|丈夫|老公|哥哥|姐姐|弟弟|妹妹|儿子|女儿|同学|室友|男朋友|女朋友|邻居|老师|爷爷|奶奶|外公|外婆|家人|亲戚|搭档|合伙人';
const enKin =
  "wife|husband|friend|colleague|co-?worker|boss|manager|mother|mom|mum|father|dad|sister|brother|son|daughter|roommate|neighbou?r|girlfriend|boyfriend|partner|teacher|classmate|cousin|aunt|uncle|grand(?:ma|pa|mother|father)|fianc[eé]e?|mentor";

/**
 * Each type's rules: a pattern and its strength. A clause scores, per type, its strongest rule
 * plus 0.05 for every further rule that matches (capped at 0.95); that score is the confidence.
 */
const rules: Readonly<Record<RuleType, readonly Rule[]>> = {
  plan: [
    [/打算|计划|准备|将要|将会|明天|后天|下周|下星期|下个月|明年|下次/u, 0.85],
    [new RegExp(`\\b(?:plan(?:s|ned|ning)? to|going to|gonna|intends? to|tomorrow|next (?:week|month|year|time|weekend|${weekday}))\\b`, 'i'), 0.85],
    [/要去|会去|想去|待会|等会|回头/u, 0.7],
    [/\b(?:will|shall|about to|want to|would like to)\b|'ll\b/i, 0.7],
  ],
  episode: [
    [/\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}[日号]?)?|\d{1,2}月\d{1,2}[日号]|昨天|前天|昨晚|上周|上星期|上个?月|去年|刚才|刚刚|那天|上次/u, 0.85],
    [new RegExp(`\\b(?:yesterday|last (?:night|week|month|year|weekend|${weekday})|\\d+ (?:days?|weeks?|months?|years?) ago|this morning|\\d{4}-\\d{2}-\\d{2})\\b`, 'i'), 0.85],
    [/今天|今早|今晚|周[一二三四五六日末]|星期[一二三四五六日天]/u, 0.65],
    [new RegExp(`\\b(?:today|tonight|this (?:afternoon|evening)|on (?:${weekday}))\\b`, 'i'), 0.65],
    [/[去见吃看买做到遇聊]了|参加了|已经/u, 0.55],
    [/\b(?:went|met|visited|saw|bought|moved|started|finished|attended|did|was|were|got)\b/i, 0.55],
  ],
  preference: [
    [/喜欢|讨厌|爱吃|爱喝|爱看|爱玩|偏好|最爱|偏爱|受不了|热爱|钟爱|不爱/u, 0.85],
    [/\b(?:loves?|loved|hates?|hated|prefers?|preferred|favou?rite|dislikes?|disliked|enjoys?|enjoyed|fond of)\b|\bcan'?t stand\b/i, 0.85],
    [/\b(?:likes?|liked)\b/i, 0.7],
  ],
  relation: [
    [new RegExp(`是(?:我|你|他|她|我们|他们|她们)?的?(?:好|最好的)?(?:${zhKin})`, 'u'), 0.85],
    [new RegExp(`\\b(?:is|are|was)\\s+(?:my|his|her|their|our|your)\\s+(?:best\\s+|close\\s+|old\\s+)?(?:${enKin})s?\\b|\\b(?:${enKin})s? of\\b`, 'i'), 0.85],
    [new RegExp(zhKin, 'u'), 0.65],
    [new RegExp(`\\b(?:${enKin})s?\\b`, 'i'), 0.65],
  ],
  fact: [
    [/住在|工作|来自|毕业于|出生|名字是|叫做|职业|位于|属于/u, 0.75],
    [/\b(?:lives? in|works? (?:at|for|as|in)|born in|(?:am|is|are) from|studied|graduated|is called|named|located in|belongs to)\b/i, 0.75],
    [/是|有|叫/u, 0.5],
    [/\b(?:is|are|am|has|have|owns?)\b/i, 0.5],
  ],
};

/** Ties go to the type earlier here: what is about time first, plain facts last. */
const priority: readonly RuleType[] = ['plan', 'episode', 'preference', 'relation', 'fact'];

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The type and confidence of one clause; `unknown` at 0.3 when no rule matches. */
export function classifyClause(clause: string): { atomType: AtomType; confidence: number } {
  let best: { atomType: AtomType; confidence: number } = { atomType: 'unknown', confidence: 0.3 };
  for (const type of priority) {
    const hits = rules[type].filter(([re]) => re.test(clause)).map(([, w]) => w);
    if (hits.length === 0) continue;
    const score = round2(Math.min(0.95, Math.max(...hits) + 0.05 * (hits.length - 1)));
    if (score > best.confidence) best = { atomType: type, confidence: score };
  }
  return best;
}

const capitalStop = new Set(
  (
    'i im ive id a an the my our your his her their we he she they it its this that these those there here today tomorrow yesterday ' +
    'last next on in at and but so then when if after before also maybe please yes no ok hi hello dear what why how who ' +
    `${weekday.replace(/\|/g, ' ')} january february march april may june july august september october november december`
  ).split(' '),
);

const nounTags = new Set(['n', 'nr', 'nrt', 'nrfg', 'ns', 'nt', 'nz']);

/** Runs of capitalised English words that are not sentence furniture: "New York", "Alice". */
function capitalisedNames(clause: string): string[] {
  const names: string[] = [];
  for (const run of capitalisedRuns(clause)) {
    let current: string[] = [];
    for (const word of run) {
      if (capitalStop.has(word.toLowerCase().replace(/['’]/g, ''))) {
        if (current.length > 0) names.push(current.join(' '));
        current = [];
      } else current.push(word.replace(/['’]s$/, ''));
    }
    if (current.length > 0) names.push(current.join(' '));
  }
  return names;
}

/** Nouns jieba finds (two characters or more), and unknown Han words (jieba tags new names `x`). */
function chineseNouns(clause: string): string[] {
  if (!someOf(clause, han)) return [];
  // Two code points or more: the word is longer than its first one.
  return tagWords(clause)
    .filter(({ word, tag }) => word.length > widthAt(word.codePointAt(0) ?? 0) && (nounTags.has(tag) || (tag === 'x' && allOf(word, han))))
    .map(({ word }) => word);
}

/** Participants mentioned in the clause, then capitalised names, then Chinese nouns; deduplicated, case-insensitive. */
export function clauseEntities(clause: string, participants: readonly string[]): string[] {
  const lower = clause.toLowerCase();
  const mentioned = participants.map((p) => p.trim()).filter((p) => p.length > 0 && lower.includes(p.toLowerCase()));
  const seen = new Set<string>();
  const out: string[] = [];
  for (const entity of [...mentioned, ...capitalisedNames(clause), ...chineseNouns(clause)]) {
    const key = entity.toLowerCase();
    if (seen.has(key) || out.length >= 200) continue;
    seen.add(key);
    out.push(entity.slice(0, 500));
  }
  return out;
}

/**
 * One atom per distinct clause of the text (by `atomKey`), then one `fact` atom per key fact not
 * already said by a clause. A clause equal to a key fact is a fact at confidence 0.9.
 */
export function extractAtoms(input: AtomInput, now: string, ids: (n: number) => string): AtomData[] {
  const facts = new Map(input.keyFacts.map((f) => [atomKey(f), f.trim()] as const).filter(([k]) => k.length > 0));
  const seen = new Set<string>();
  const drafts: { content: string; atomType: AtomType; confidence: number }[] = [];
  for (const clause of splitClauses(input.text)) {
    const key = atomKey(clause);
    if (seen.has(key)) continue;
    seen.add(key);
    drafts.push(facts.has(key) ? { content: clause, atomType: 'fact', confidence: 0.9 } : { content: clause, ...classifyClause(clause) });
  }
  for (const [key, fact] of facts) {
    if (seen.has(key)) continue;
    seen.add(key);
    drafts.push({ content: fact, atomType: 'fact', confidence: 0.9 });
  }
  return drafts.map((draft, n) => {
    const ttlDays = atomTtlDays(draft.atomType, input.importance, 0);
    return {
      atomId: ids(n),
      memoryId: input.memoryId,
      atomType: draft.atomType,
      content: draft.content,
      entities: clauseEntities(draft.content, input.participants),
      importance: input.importance,
      confidence: draft.confidence,
      ttlDays,
      expiresAt: expiresAtFrom(now, ttlDays),
      decayType: decayTypes[draft.atomType],
      sessionId: input.sessionId,
      personaId: input.personaId,
    };
  });
}
