/**
 * LoCoMo evidence-recall benchmark: how many of the turns that answer a question the engine finds.
 *
 *   npm run bench:locomo [-- --json] [--mode=turns|pipeline|both] [--conversations=N] [--providers=hash,use-lite] [--dataset=PATH] [--workers=N]
 *
 * Ingest mode `pipeline` (ingest-pipeline.ts): the conversation through the host hooks and the
 * offline summarizer, memories carrying their source turns; `--mode=both` (default) reports both.
 * Ingest mode `turns`: every dialogue turn of a conversation is one memory written through
 * `engine.writeMemory`, with the turn id as its source, into a fresh engine per conversation and
 * embedding provider. Questions of categories 1-4 whose evidence ids are all turn ids are asked
 * in four modes (keyword BM25, vector search, `fusion` = plain 50/50 min-max fusion of the two,
 * `full` = `engine.recall` or, while the engine has none, that same fusion); recall@k is the share of the question's evidence turns among the sources of the
 * top k memories, and @budget the same for the memories that fit 6,000 characters.
 *
 * The data set (Maharana et al. 2024, CC BY-NC 4.0, research use) is read from
 * ../shared/datasets/locomo10.json beside the repository root. Conversations run in up to
 * --workers child processes (default: one per CPU, at most 4); every figure but the latencies is
 * the same for any number of workers.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { row, wantsJson, type BenchRow } from '../report.js';
import { intArg, isEntryPoint, progress } from '../support.js';
import { categoryNames, defaultDatasetPath, loadLocomo, type Conversation } from './dataset.js';
import { collect, goalAt10, referenceFor, references, type LossRow, type RecallRow } from './metrics.js';
import { budgetChars, ingestModes, poolSize, providerNames, runConversation, timedK, warmProvider, type ConversationResult, type IngestMode, type ModeName, type ProviderName } from './run.js';
import { pipelineMeta } from './ingest-report.js';
import type { ClockMode } from './pipeline.js';
import { alignedTable, fixed, percent } from './table.js';

/** The figure the issue gives for questions of categories 1-4 "with valid evidence". */
const issueQuestionCount = 1536;

function stringArg(name: string, argv: readonly string[] = process.argv): string | undefined {
  const at = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  const arg = argv[at] ?? '';
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[at + 1];
}

function clockArg(): ClockMode {
  const raw = stringArg('clock') ?? 'session';
  if (raw !== 'session' && raw !== 'flat') throw new Error(`--clock takes session or flat; got ${raw}`);
  return raw;
}

function modesArg(): IngestMode[] {
  const raw = stringArg('mode') ?? 'both';
  if (raw === 'both') return [...ingestModes];
  if (!(ingestModes as readonly string[]).includes(raw)) throw new Error(`--mode takes turns, pipeline or both; got ${raw}`);
  return [raw as IngestMode];
}

function providersArg(): ProviderName[] {
  const raw = stringArg('providers');
  if (raw === undefined) return [...providerNames];
  const names = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const bad = names.filter((n) => !(providerNames as readonly string[]).includes(n));
  if (names.length === 0 || bad.length > 0) throw new Error(`--providers takes a comma-separated list of ${providerNames.join(', ')}; got ${raw}`);
  return [...new Set(names)] as ProviderName[];
}

// ---------------------------------------------------------------------------------------------
// Running: in this process, or spread over child processes.

type WorkerMessage = { type: 'result'; result: ConversationResult } | { type: 'error'; message: string };

async function runHere(conversations: readonly Conversation[], providers: readonly ProviderName[], clock: ClockMode, ingest: IngestMode): Promise<ConversationResult[]> {
  for (const p of providers) await warmProvider(p);
  const results: ConversationResult[] = [];
  for (const c of conversations) results.push(await runConversation(c, { providers, clock, ingest, log: progress }));
  return results;
}

/** Longest conversations first, each to the least loaded worker. */
function assign(conversations: readonly Conversation[], workers: number): number[][] {
  const load = Array.from({ length: workers }, () => 0);
  const shards: number[][] = Array.from({ length: workers }, () => []);
  const order = conversations.map((c, i) => ({ i, size: c.turns.length + c.questions.length })).sort((a, b) => b.size - a.size || a.i - b.i);
  for (const { i, size } of order) {
    const w = load.indexOf(Math.min(...load));
    load[w] = (load[w] ?? 0) + size;
    shards[w]?.push(i);
  }
  return shards.filter((s) => s.length > 0);
}

async function runInWorkers(
  datasetPath: string,
  conversations: readonly Conversation[],
  providers: readonly ProviderName[],
  clock: ClockMode,
  workers: number,
  ingest: IngestMode,
): Promise<ConversationResult[]> {
  const results = new Map<string, ConversationResult>();
  const self = fileURLToPath(import.meta.url);
  await Promise.all(
    assign(conversations, workers).map(
      (shard) =>
        new Promise<void>((done, failed) => {
          const child = fork(self, [`--dataset=${datasetPath}`, `--providers=${providers.join(',')}`, `--clock=${clock}`, `--mode=${ingest}`, `--worker=${shard.join(',')}`], {
            stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
          });
          let error: string | null = null;
          child.on('message', (message: WorkerMessage) => {
            if (message.type === 'result') results.set(message.result.conversationId, message.result);
            else error = message.message;
          });
          child.on('error', failed);
          child.on('exit', (code, signal) => {
            if (code === 0 && error === null) done();
            else failed(new Error(`worker for conversations ${shard.join(',')} failed (${signal ?? `exit ${String(code)}`}): ${error ?? 'see stderr'}`));
          });
        }),
    ),
  );
  return conversations.map((c) => {
    const r = results.get(c.id);
    if (!r) throw new Error(`no result for ${c.id}`);
    return r;
  });
}

async function worker(spec: string): Promise<void> {
  const send = (message: WorkerMessage) => new Promise<void>((done) => process.send?.(message, () => done()));
  try {
    const all = loadLocomo(stringArg('dataset') ?? defaultDatasetPath());
    const providers = providersArg();
    const clock = clockArg();
    const [ingest] = modesArg();
    for (const p of providers) await warmProvider(p);
    for (const i of spec.split(',').map(Number)) {
      const conversation = all[i];
      if (!conversation) throw new Error(`no conversation ${i}`);
      await send({ type: 'result', result: await runConversation(conversation, { providers, clock, ingest, log: progress }) });
    }
  } catch (error) {
    await send({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exitCode = 1;
  }
  process.disconnect?.();
}

// ---------------------------------------------------------------------------------------------
// Reporting.

const seriesName = (mode: string, provider: string) => (provider === '-' ? mode : `${mode}/${provider}`);

function modeLabel(mode: ModeName, fullLabel: string | undefined): string {
  if (mode === 'full') return `full (${fullLabel ?? '?'}, issue defaults)`;
  if (mode === 'archival') return 'full (archival profile)';
  if (mode === 'bm25') return 'bm25 (plain FTS5, porter, stop list)';
  return mode === 'fusion' ? 'fusion (50/50 min-max)' : mode;
}

function recallTable(rows: readonly RecallRow[], fullLabels: Record<string, string>): string {
  const body = rows.map((r) => {
    const ref = r.category === 0 ? referenceFor(r.mode, r.provider) : null;
    return [
      modeLabel(r.mode, fullLabels[r.provider]),
      r.provider,
      r.category === 0 ? 'all 1-4' : `${r.category} ${categoryNames[r.category] ?? ''}`,
      String(r.questions),
      fixed(r.recall.at1),
      fixed(r.recall.at5),
      fixed(r.recall.at10),
      fixed(r.recall.at20),
      fixed(r.recall.budget),
      ref === null ? '' : fixed(ref, 2),
    ];
  });
  return alignedTable(['mode', 'provider', 'category', 'n', '@1', '@5', '@10', '@20', '@budget', 'ref@10'], body, new Set([3, 4, 5, 6, 7, 8, 9]));
}

function lossTable(rows: readonly LossRow[]): string {
  const body = rows.map((r) => [
    seriesName(r.mode, r.provider),
    percent(r.zeroAt10),
    percent(r.completeAt10),
    percent(r.zeroAtBudget),
    fixed(r.budgetMemories, 1),
    percent(r.rank1to10),
    percent(r.rank11to20),
    percent(r.rank21to100),
    percent(r.notInTop100),
    percent(r.hitAt10ByOverlap.text),
    percent(r.hitAt10ByOverlap.caption),
    percent(r.hitAt10ByOverlap.none),
    percent(r.hitAt10Image),
    percent(r.hitAt10NoImage),
    fixed(r.at10ByEvidenceCount['1']),
    fixed(r.at10ByEvidenceCount['2']),
    fixed(r.at10ByEvidenceCount['3+']),
  ]);
  return alignedTable(
    ['series', 'q@10=0', 'q@10=1', 'q@bud=0', 'mem@bud', 'ev≤10', 'ev11-20', 'ev21-100', 'ev>100', 'hit|text', 'hit|capt', 'hit|none', 'hit|img', 'hit|noimg', '@10|1ev', '@10|2ev', '@10|3+ev'],
    body,
    new Set(Array.from({ length: 16 }, (_, i) => i + 1)),
  );
}

function comparisonRows(rows: readonly RecallRow[]): BenchRow[] {
  const all = rows.filter((r) => r.category === 0);
  const out: BenchRow[] = [];
  for (const ref of references) {
    const ours = all.find((r) => r.mode === ref.mode && r.provider === ref.provider);
    if (ours) out.push(row(`${seriesName(ref.mode, ref.provider)} recall@10 vs issue: ${ref.what}`, ours.recall.at10, ref.at10, 'recall'));
  }
  for (const r of all.filter((x) => x.mode === 'full' || x.mode === 'archival')) {
    out.push(row(`${seriesName(r.mode, r.provider)} recall@10 vs goal`, r.recall.at10, goalAt10, 'recall', 1));
  }
  // Every mode beside plain BM25 over the same texts and questions, in this run; full and archival per category too (target: at least BM25's).
  for (const r of rows.filter((x) => x.mode !== 'bm25')) {
    const bm25 = rows.find((x) => x.mode === 'bm25' && x.category === r.category);
    if (!bm25 || (r.category !== 0 && r.mode !== 'full' && r.mode !== 'archival')) continue;
    const what = r.category === 0 ? 'all' : `category ${r.category}`;
    const target = r.mode === 'full' || r.mode === 'archival' ? 1 : undefined;
    out.push(row(`${seriesName(r.mode, r.provider)} recall@10 vs plain BM25 (same run, ${what})`, r.recall.at10, bm25.recall.at10, 'recall', target));
  }
  return out;
}

function comparisonTable(rows: readonly BenchRow[]): string {
  const body = rows.map((r) => [
    r.name,
    fixed(r.ours),
    fixed(r.baseline, 2),
    `${r.ratio.toFixed(3)}x`,
    r.target === undefined ? '-' : r.ratio >= r.target ? 'yes' : 'NO',
  ]);
  return alignedTable(['figure', 'ours', 'reference', 'ours/ref', 'meets goal'], body, new Set([1, 2, 3]));
}

async function main(ingest: IngestMode): Promise<void> {
  const started = process.hrtime.bigint();
  const json = wantsJson();
  const datasetArg = stringArg('dataset');
  const datasetPath = datasetArg === undefined ? defaultDatasetPath() : resolve(datasetArg);
  const all = loadLocomo(datasetPath);
  const conversations = all.slice(0, intArg('conversations', all.length));
  const providers = providersArg();
  const clock = clockArg();
  const workers = Math.min(intArg('workers', Math.min(availableParallelism(), 4)), conversations.length);
  const questionCount = conversations.reduce((a, c) => a + c.questions.length, 0);
  progress(`${ingest}: ${conversations.length} conversations, ${questionCount} questions, providers ${providers.join(', ')}, ${workers} worker(s)`);

  const results = workers <= 1 ? await runHere(conversations, providers, clock, ingest) : await runInWorkers(datasetPath, conversations, providers, clock, workers, ingest);
  const figures = collect(results);
  const runtimeSeconds = Number(process.hrtime.bigint() - started) / 1e9;

  const skipped = conversations.reduce(
    (a, c) => ({
      inCategories: a.inCategories + c.skipped.inCategories,
      emptyEvidence: a.emptyEvidence + c.skipped.emptyEvidence,
      invalidEvidence: a.invalidEvidence + c.skipped.invalidEvidence,
      noValidEvidence: a.noValidEvidence + c.skipped.noValidEvidence,
    }),
    { inCategories: 0, emptyEvidence: 0, invalidEvidence: 0, noValidEvidence: 0 },
  );
  const fullLabels: Record<string, string> = {};
  for (const r of results) for (const [p, label] of Object.entries(r.fullLabels)) fullLabels[p] = label;
  const labels = [...new Set(Object.values(fullLabels))];
  const fullMaxK = results.find((r) => r.fullMaxK !== null)?.fullMaxK ?? null;
  const atoms = results.reduce(
    (a, r) => ({
      memories: a.memories + (r.atomPolicy?.memories ?? 0),
      expired: a.expired + (r.atomPolicy?.expired ?? 0),
      hidden: a.hidden + (r.atomPolicy?.hidden ?? 0),
      evidence: a.evidence + (r.atomPolicy?.evidence ?? 0),
      evidenceExpired: a.evidenceExpired + (r.atomPolicy?.evidenceExpired ?? 0),
    }),
    { memories: 0, expired: 0, hidden: 0, evidence: 0, evidenceExpired: 0 },
  );
  const fullReturned = figures.outcomes.filter((o) => o.mode === 'full');
  const meanReturned = fullReturned.reduce((a, o) => a + o.poolCount, 0) / Math.max(1, fullReturned.length);
  const allConversations = conversations.length === all.length;
  const meta: Record<string, string | number | boolean> = {
    dataset: datasetPath,
    conversations: conversations.length,
    turns: conversations.reduce((a, c) => a + c.turns.length, 0),
    questionsInCategories1to4: skipped.inCategories,
    questionsWithEmptyEvidence: skipped.emptyEvidence,
    questionsWithInvalidEvidenceIds: skipped.invalidEvidence,
    questionsUsed: questionCount,
    ...(allConversations ? { issueQuestionCount, differenceFromIssue: questionCount - issueQuestionCount } : {}),
    ingestMode: ingest,
    ...(ingest === 'turns'
      ? { memoryText: '`${speaker}: ${text}[ [image: ${blip_caption}]] (${session_date_time})`' }
      : { memoryText: 'summaries of the offline summarizer; messages `${text}[ [image: ${blip_caption}]]` from the speaker, a minute apart at the session date', ...pipelineMeta(conversations, results) }),
    providers: providers.join(','),
    clock: ingest === 'pipeline' ? 'session dates (messages at their session date, summaries a minute after the last, questions 1 h after the last session)' : clock === 'session' ? 'session dates (memories at their session date, questions 1 h after the last session)' : 'flat (2026-01-01, 1 s per id)',
    full: labels.join('; '),
    fullMaxK: fullMaxK ?? 'none',
    fullBudget: fullMaxK === null ? `top ${poolSize} taken to ${budgetChars} chars` : `the recall's own injection at topK=${fullMaxK}`,
    budgetChars,
    poolSize,
    latencyTimedAtK: timedK,
    workers,
    node: process.version,
    runtimeSeconds: Math.round(runtimeSeconds * 10) / 10,
  };
  const comparison = comparisonRows(figures.recall);

  if (json) {
    const out = {
      title: 'LoCoMo evidence recall',
      meta,
      recall: figures.recall.map((r) => ({ ...r, categoryName: r.category === 0 ? 'all' : (categoryNames[r.category] ?? null), referenceAt10: r.category === 0 ? referenceFor(r.mode, r.provider) : null })),
      latency: figures.latency,
      ingest: figures.ingest,
      losses: figures.losses,
      evidenceProfile: figures.profile,
      atomPolicy: atoms,
      fullMeanReturned: meanReturned,
      comparison: comparison.map((r) => ({ ...r, pass: r.target === undefined ? null : r.ratio >= r.target })),
      goalAt10,
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return;
  }

  const metaWidth = Math.max(...Object.keys(meta).map((k) => k.length));
  const p = figures.profile;
  const text = [
    `LoCoMo evidence recall (ingest mode: ${ingest === 'turns' ? 'turns, one memory per dialogue turn' : 'pipeline, the hooks and the offline summarizer'})`,
    '',
    ...Object.entries(meta).map(([k, v]) => `${`${k}:`.padEnd(metaWidth + 1)} ${String(v)}`),
    '',
    `Recall: mean share of a question's evidence turns held by the sources of the top-k memories; @budget = the`,
    `ranked memories (of the top ${poolSize}) taken while their texts sum to <= ${budgetChars} characters. ref@10 = the issue's figure.`,
    ...(fullMaxK === null
      ? []
      : [
          `full: engine.recall takes topK <= ${fullMaxK}, so its @20 is its top ${fullMaxK}, and its @budget is what its own injection`,
          `(topK=${fullMaxK}, ${budgetChars} chars, 800 per memory) includes; its evidence ranks (below) stop at ${fullMaxK}.`,
        ]),
    '',
    recallTable(figures.recall, fullLabels),
    '',
    `Latency per query (the k=${timedK} call; vector, fusion and full include embedding the question)`,
    '',
    alignedTable(
      ['series', 'queries', 'p50 ms', 'p95 ms', 'mean ms'],
      figures.latency.map((l) => [seriesName(l.mode, l.provider), String(l.queries), fixed(l.p50Ms, 2), fixed(l.p95Ms, 2), fixed(l.meanMs, 2)]),
      new Set([1, 2, 3, 4]),
    ),
    '',
    ingest === 'turns' ? 'Ingest (engine.writeMemory per turn: embedding, extraction, append, projections caught up)' : 'Ingest (beforeLlmRequest per turn, then every summary written; turns = turns held by a memory)',
    '',
    alignedTable(
      ['provider', 'turns', 'seconds', 'turns/s', 'embedding share'],
      figures.ingest.map((i) => [i.provider, String(i.turns), fixed(i.wallSeconds, 1), fixed(i.turnsPerSecond, 1), percent(i.embedShare)]),
      new Set([1, 2, 3, 4]),
    ),
    '',
    'Where recall is lost',
    `  evidence: ${p.evidence} turns for ${p.questions} questions (${p.questionsByEvidenceCount['1']} with 1, ${p.questionsByEvidenceCount['2']} with 2, ${p.questionsByEvidenceCount['3+']} with 3+ turns);`,
    `  ${percent(p.image)} of evidence turns carry an image caption; by shared tokens with the question (speaker names not counted):`,
    `  ${percent(p.overlap.text)} share a word in the turn text, ${percent(p.overlap.caption)} only in the caption, ${percent(p.overlap.none)} share none.`,
    '  q@10=0 / q@10=1: questions with none / all of their evidence in the top 10; q@bud=0: none within the budget; mem@bud: memories in the budget.',
    '  ev≤10 .. ev>100: evidence turns by the rank of the first memory holding them (in the top-100 pool call);',
    '  hit|text, hit|capt, hit|none: evidence turns ranked ≤10, by overlap kind above; hit|img / hit|noimg: with / without an image;',
    '  @10|1ev .. @10|3+ev: mean recall@10 of questions with 1, 2, 3+ evidence turns.',
    `  atom policy at question time: ${atoms.expired} of ${atoms.memories} memories (${percent(atoms.expired / atoms.memories)}) have only expired atoms, holding`,
    `  ${atoms.evidenceExpired} of ${atoms.evidence} evidence turns; the policy drops ${atoms.hidden} of them (records, memories with sources, stay).`,
    `  full returned ${fixed(meanReturned, 2)} memories on average for its pool call (topK=${fullMaxK ?? poolSize}).`,
    '',
    lossTable(figures.losses),
    '',
    'Beside the issue (its figures were measured on `turns` by another harness)',
    '',
    comparisonTable(comparison),
    '',
  ].join('\n');
  process.stdout.write(text);
}

if (isEntryPoint(import.meta.url)) {
  const spec = stringArg('worker');
  const run = spec === undefined ? modesArg().reduce((before, mode) => before.then(() => main(mode)), Promise.resolve()) : worker(spec);
  run.catch((error: unknown) => {
    process.stderr.write(`bench:locomo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
