import { atomKey } from '../../projections/atoms.js';
import { tokenize } from '../../projections/text/tokenizer.js';
import { canonicalJson } from '../embeddings/provider.js';
import { participantsOf, speakerLabel, type IdentityAliases } from './identity.js';
import { LlmProviderError, summarySchema, type LlmProvider, type Summary, type SummaryRequest } from './provider.js';
import { finished, splitSentences, type Sentence } from './sentences.js';
import { factScore, importanceOf, sentimentOf } from './signals.js';
import { topTerms } from './topics.js';

export interface ExtractiveOptions {
  /** Platform sender id -> the person's one name (see identityAliasesSchema). */
  readonly identityAliases?: IdentityAliases;
  /** Sentences quoted in the summary, at most; default 6. */
  readonly maxSentences?: number;
}

export const extractiveDefaults = { maxSentences: 6, maxKeyFacts: 12, topics: 6, minTopics: 3, summaryChars: 800, sentenceChars: 200, factChars: 300 } as const;

/** A sentence of the window, who said it, and how much it is worth quoting. */
interface Scored extends Sentence {
  readonly speaker: string;
  readonly position: number;
  readonly facts: number;
  score: number;
}

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** `speaker: sentence`, with the Chinese full-width colon for a Chinese sentence. */
const attributed = (s: Scored, max: number): string => `${capitalise(s.speaker)}${s.chinese ? '：' : ': '}${finished(s, max)}`;

/** Every sentence of the user and assistant messages, in order, with its speaker and fact score. */
function sentencesOf(request: SummaryRequest, aliases: IdentityAliases): Scored[] {
  const out: Scored[] = [];
  for (const message of request.messages) {
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const speaker = speakerLabel(message, request.chatType, aliases);
    for (const sentence of splitSentences(message.content)) {
      out.push({ ...sentence, speaker, position: out.length, facts: factScore(sentence), score: 0 });
    }
  }
  return out;
}

/**
 * Scores each sentence: the window frequencies of its distinct tokens (a sentence said twice
 * counts once; log-damped, over the square root of its length, short sentences damped, scaled to
 * the best sentence), plus its fact signals; questions and the assistant's sentences count less,
 * since the memory is about what people said.
 */
function score(sentences: Scored[], isAssistant: (s: Scored) => boolean): void {
  const tokens = sentences.map((s) => [...new Set(tokenize(s.text))]);
  const frequency = new Map<string, number>();
  const counted = new Set<string>();
  sentences.forEach((s, i) => {
    const key = atomKey(s.text);
    if (counted.has(key)) return;
    counted.add(key);
    for (const t of tokens[i] ?? []) frequency.set(t, (frequency.get(t) ?? 0) + 1);
  });
  const raw = tokens.map((set) => (set.length === 0 ? 0 : (set.reduce((sum, t) => sum + Math.log(1 + (frequency.get(t) ?? 0)), 0) / Math.sqrt(set.length)) * Math.min(1, set.length / 4)));
  // A long window has more sentences than a call takes arguments: no spread into Math.max.
  const best = raw.reduce((max, x) => (x > max ? x : max), Number.EPSILON);
  sentences.forEach((s, i) => {
    s.score = 0.5 * ((raw[i] ?? 0) / best) + 0.5 * Math.min(1, s.facts / 2) - (s.question ? 0.2 : 0) - (isAssistant(s) ? 0.15 : 0);
  });
}

/** The highest-scoring sentences, first by score (ties: earlier), then back in the order they were said. */
function pick(sentences: readonly Scored[], limit: number, keep: (s: Scored) => boolean = () => true): Scored[] {
  const seen = new Set<string>();
  return [...sentences]
    .filter(keep)
    .sort((a, b) => b.score - a.score || a.position - b.position)
    .filter((s) => {
      const key = atomKey(s.text);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, limit)
    .sort((a, b) => a.position - b.position);
}

/** One line naming who talked about what, in the window's language. */
function lead(request: SummaryRequest, participants: readonly string[], topics: readonly string[], chinese: boolean): string {
  const people = participants.length > 0 ? participants.slice(0, 10) : [request.chatType === 'private' ? 'the user' : 'the group'];
  const about = topics.slice(0, 4);
  if (chinese) {
    const who = request.chatType === 'private' ? `${people.join('、')}和助手` : people.join('、');
    return about.length > 0 ? `${who}聊了${about.join('、')}。` : `${who}聊了天。`;
  }
  const names = people.length > 1 ? `${people.slice(0, -1).join(', ')} and ${people.at(-1) ?? ''}` : (people[0] ?? '');
  const who = request.chatType === 'private' ? `${names} talked with the assistant` : `${names} talked`;
  return `${capitalise(who)}${about.length > 0 ? ` about ${about.join(', ')}` : ''}.`;
}

/** The lead, then the quoted sentences in order (consecutive ones by one speaker share the name), within the length cap. */
function composeSummary(first: string, quoted: readonly Scored[]): string {
  const d = extractiveDefaults;
  let text = first;
  let previous: string | null = null;
  for (const s of quoted) {
    const same = previous === s.speaker;
    const part = same ? `${s.chinese ? '' : ' '}${finished(s, d.sentenceChars)}` : ` ${attributed(s, d.sentenceChars)}`;
    if (text.length + part.length > d.summaryChars) continue;
    text += part;
    previous = s.speaker;
  }
  return text;
}

/**
 * The offline, deterministic summarizer (the default): no model, no network. It quotes the
 * window's most informative sentences by speaker, lists frequent words as topics and fact-like
 * sentences as key facts, and rates sentiment and importance by small lexicons and counts.
 * Chinese and English alike: sentences are split on 。！？!?. and newlines, words by jieba.
 */
export function createExtractiveSummarizer(options: ExtractiveOptions = {}): LlmProvider {
  const aliases = options.identityAliases ?? {};
  const maxSentences = options.maxSentences ?? extractiveDefaults.maxSentences;
  if (!Number.isInteger(maxSentences) || maxSentences < 1) throw new RangeError(`extractive maxSentences must be a positive integer, got ${maxSentences}`);

  const summarize = (request: SummaryRequest): Summary => {
    const sentences = sentencesOf(request, aliases);
    if (sentences.length === 0) throw new LlmProviderError('extractive', `session ${request.sessionId}: nothing to summarize (no user or assistant text in the window)`);
    const assistantSpeakers = new Set(request.messages.filter((m) => m.role === 'assistant').map((m) => speakerLabel(m, request.chatType, aliases)));
    score(sentences, (s) => assistantSpeakers.has(s.speaker));
    const participants = participantsOf(request.messages, aliases);
    const exclude = new Set([...participants, ...assistantSpeakers, 'user', 'assistant'].map((name) => name.toLowerCase()));
    const texts = sentences.map((s) => s.text);
    const topics = topTerms(sentences.map((s) => ({ text: s.text, weight: 1 + 2 * Math.min(2, s.facts) })), extractiveDefaults.topics, extractiveDefaults.minTopics, exclude);
    const facts = pick(sentences, extractiveDefaults.maxKeyFacts, (s) => s.facts > 0 && !assistantSpeakers.has(s.speaker));
    const chinese = sentences.filter((s) => s.chinese).length * 2 >= sentences.length;
    // Sentences far below the best one are small talk beside it: quoted only in a window of small talk.
    const top = sentences.reduce((max, s) => (s.score > max ? s.score : max), -Infinity);
    const summary = composeSummary(lead(request, participants, topics, chinese), pick(sentences, maxSentences, (s) => s.score >= top / 2));
    const result = {
      summary,
      topics,
      keyFacts: facts.map((s) => attributed(s, extractiveDefaults.factChars)),
      participants,
      sentiment: sentimentOf(texts),
      importance: importanceOf(facts.length, texts),
    };
    const checked = summarySchema().safeParse(result);
    if (!checked.success) throw new LlmProviderError('extractive', `produced an invalid summary: ${checked.error.message}`);
    return checked.data;
  };

  return {
    fingerprint: { provider: 'extractive', model: 'extractive-v1', dimension: null, settings: { maxSentences, identityAliases: canonicalJson(aliases) } },
    summarize: async (request, signal) => {
      signal?.throwIfAborted();
      return summarize(request);
    },
  };
}
