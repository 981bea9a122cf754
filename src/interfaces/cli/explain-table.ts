import type { Explanation } from '../../queries/recall/types.js';
import { table } from './output.js';

/*
 * `lmem search --explain`: each hit's way to its score as a table, in the order the pipeline
 * computes it: per route the raw scores, the normalised parts, the fusion and the weighting; then
 * the cross-route combination, the bonuses, rerank and MMR's penalty, down to the score shown.
 */

const routes = ['document', 'graph'] as const;

const num = (value: number | undefined): string => (value === undefined ? '-' : value.toFixed(3));
const signed = (value: number): string => `${value < 0 ? '-' : '+'}${Math.abs(value).toFixed(3)}`;

/** Rows of the per-route part: label, then one cell per route. */
const routeRows: readonly [string, (e: Explanation, route: string) => number | undefined][] = [
  ['keyword raw (BM25)', (e, r) => e.routes[`${r}.keyword.raw`]],
  ['vector raw (cosine)', (e, r) => e.routes[`${r}.vector.raw`]],
  ['keyword part', (e, r) => e.routes[`${r}.keyword`]],
  ['vector part', (e, r) => e.routes[`${r}.vector`]],
  ['agreement', (e, r) => e.routes[`${r}.agreement`]],
  ['fused', (e, r) => e.fused[r]],
  ['relevance part', (e, r) => e.weights[`${r}.relevance`]],
  ['+ importance part', (e, r) => e.weights[`${r}.importance`]],
  ['+ recency part', (e, r) => e.weights[`${r}.recency`]],
  ['= route score', (e, r) => e.weights[`${r}.score`]],
  ['route weight', (e, r) => e.weights[r]],
];

/** The table of one explanation, each line indented by `indent`. */
export function explainTable(e: Explanation, indent = '   '): string {
  const head = ['step', ...routes];
  const perRoute = routeRows.map(([label, get]) => [label, ...routes.map((r) => num(get(e, r)))]);
  const b = e.bonuses;
  const steps: string[][] = [
    ['combined (route weights x scores)', num(e.combined - (b['bothRoutes'] ?? 0))],
    ['both-routes bonus', signed(b['bothRoutes'] ?? 0)],
    ['conversation context', signed(b['context'] ?? 0)],
    ...(b['rerank'] === undefined ? [] : [['reranked to', num(b['rerank'])]]),
    ['pool score', num(e.pool)],
    ['MMR penalty', `-${num(b['mmrPenalty'] ?? 0)}`],
    ['final (shown)', num(e.final)],
  ];
  const at = (text: string) => text.split('\n').map((line) => indent + line);
  const lines = [...at(table([head, ...perRoute])), ...at(table(steps))];
  for (const note of e.notes ?? []) lines.push(`${indent}note: ${note}`);
  for (const failure of e.failures ?? []) lines.push(`${indent}failed: ${failure}`);
  return lines.join('\n');
}
