import type { RecallSettings } from './types.js';

/*
 * Query intent → how much the document route and the graph route count. Pure: the query text and
 * the settings decide everything. English terms match as whole words (case-insensitive, NFKC,
 * curly apostrophes read as straight ones); Chinese terms match as substrings.
 */

/** One kind of query and how it shifts the route weights. */
interface IntentRule {
  readonly name: string;
  readonly zh: readonly string[];
  readonly en: readonly string[];
  readonly document: number;
  readonly graph: number;
}

export const intentRules: readonly IntentRule[] = [
  {
    name: 'relationship',
    zh: ['关系', '朋友', '同事', '家人', '认识', '谁', '妈妈', '爸爸', '母亲', '父亲', '老板', '老婆', '老公', '丈夫',
      '妻子', '女朋友', '男朋友', '哥哥', '姐姐', '弟弟', '妹妹', '儿子', '女儿', '同学', '领导', '结婚'],
    en: ['relationship', 'relationships', 'related', 'friend', 'friends', 'colleague', 'colleagues', 'coworker',
      'coworkers', 'who', 'whom', 'whose', 'know', 'knows', 'knew', 'known', 'married', 'marry', 'wife',
      'husband', 'partner', 'sister', 'sisters', 'brother', 'brothers', 'boss', 'manager', 'mother', 'father', 'mom',
      'dad', 'mum', 'parents', 'family', 'son', 'daughter', 'girlfriend', 'boyfriend'],
    document: 0,
    graph: 0.2,
  },
  {
    name: 'temporal',
    zh: ['什么时候', '何时', '昨天', '今天', '明天', '前天', '后天', '上周', '下周', '这周', '本周', '上个月', '下个月',
      '去年', '今年', '明年', '几点', '哪天', '哪一天', '时间', '日期', '几号', '以前', '之前', '之后', '最近'],
    en: ['when', 'yesterday', 'today', 'tomorrow', 'last week', 'next week', 'last month', 'last year', 'date',
      'dates', 'time', 'ago', 'before', 'after', 'since', 'until', 'recently', 'earlier'],
    document: 0,
    graph: 0.1,
  },
  {
    name: 'definition',
    zh: ['是什么', '什么是', '为什么', '解释', '定义', '怎么', '意思', '含义'],
    en: ['what is', "what's", 'what are', 'define', 'definition', 'explain', 'why', 'how does', 'how do', 'meaning',
      'mean'],
    document: 0.15,
    graph: 0,
  },
];

const escapeRegExp = (term: string): string => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Whole words: no Latin letter or digit right before or after (so "who" matches in "who's" and in
 * "Bob是who" but not in "whole"); a space inside a term matches any run of whitespace.
 */
const wholeWords = (terms: readonly string[]): RegExp => {
  const alternatives = terms.map((t) => escapeRegExp(t).replace(/ /g, String.raw`\s+`)).join('|');
  return new RegExp(String.raw`(?<![\p{Script=Latin}\p{N}])(?:${alternatives})(?![\p{Script=Latin}\p{N}])`, 'iu');
};

const matchers = intentRules.map((rule) => ({ rule, en: wholeWords(rule.en) }));

const normalizeQuery = (query: string): string => query.normalize('NFKC').replace(/[\u2018\u2019\u02bc]/g, "'");

/** The names of the intents a query shows, in the order of `intentRules`. */
export function detectIntents(query: string): string[] {
  const text = normalizeQuery(query);
  return matchers
    .filter(({ rule, en }) => en.test(text) || rule.zh.some((term) => text.includes(term)))
    .map(({ rule }) => rule.name);
}

export interface RouteWeights {
  readonly document: number;
  readonly graph: number;
  readonly intents: string[];
}

const clamp = (weight: number): number => Math.min(0.95, Math.max(0.05, Number.isNaN(weight) ? 0.5 : weight));

/**
 * Route weights for a query: the settings' base (document 0.65, graph 0.35), plus each detected
 * intent's shift once (relationship +0.2 graph, temporal +0.1 graph, definition +0.15 document),
 * each clamped to [0.05, 0.95], then normalised to sum to 1.
 */
export function routeWeights(query: string, settings: Pick<RecallSettings, 'documentRouteWeight' | 'graphRouteWeight'>): RouteWeights {
  const intents = detectIntents(query);
  let document = settings.documentRouteWeight;
  let graph = settings.graphRouteWeight;
  for (const rule of intentRules) {
    if (!intents.includes(rule.name)) continue;
    document += rule.document;
    graph += rule.graph;
  }
  document = clamp(document);
  graph = clamp(graph);
  const sum = document + graph;
  return { document: document / sum, graph: graph / sum, intents };
}

/** One memory's cross-route score and what made it up. */
export interface CombinedScore {
  readonly score: number;
  readonly parts: { readonly document: number; readonly graph: number; readonly bothRoutes: number };
}

/**
 * Cross-route combination: weights.document·doc + weights.graph·graph, a memory missing from a
 * route counting 0 there, and `bonus` (settings.bothRoutesBonus) for a memory found by both.
 * The map iterates best first, ties by id.
 */
export function combineRoutes(
  docScores: ReadonlyMap<string, number>,
  graphScores: ReadonlyMap<string, number>,
  weights: Pick<RouteWeights, 'document' | 'graph'>,
  bonus: number,
  /** Graph-route memories the graph itself found (entries, neighbours); only they earn the bonus. Default: all. */
  graphFound?: ReadonlySet<string>,
): Map<string, CombinedScore> {
  const ids = new Set([...docScores.keys(), ...graphScores.keys()]);
  const combined = [...ids].map((id) => {
    const doc = docScores.get(id);
    const graph = graphScores.get(id);
    const parts = {
      document: weights.document * (doc ?? 0),
      graph: weights.graph * (graph ?? 0),
      bothRoutes: doc !== undefined && graph !== undefined && (graphFound?.has(id) ?? true) ? bonus : 0,
    };
    return { id, score: parts.document + parts.graph + parts.bothRoutes, parts };
  });
  combined.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return new Map(combined.map(({ id, score, parts }) => [id, { score, parts }]));
}
