import type { MemoryEngine } from '../../engine/engine.js';
import { ValidationError } from '../../events/errors.js';
import { integer, list, number, position, required, str, type Command, type Handler } from './args.js';
import { opt, recallScope, subjectOptions } from './options.js';
import { rebuildProgress, withProgress } from './progress.js';
import { conversationCommands } from './conversation-commands.js';
import { backup, erase } from './erase-command.js';
import { clip, screenWidth, shortIds, shortTime, table } from './output.js';
import { describeEvent } from '../../replay/describe.js';
import type { RecordedEvent } from '../../events/log/event-log.js';
import { memoryCommands } from './memory-commands.js';
import { explainTable } from './explain-table.js';
import { coverageWarning } from '../../providers/embeddings/coverage.js';
import { replayCommands } from './replay-commands.js';
import { transferCommands } from './transfer-commands.js';
import { verify } from './verify-command.js';
import { exitCodes } from './exit-codes.js';
import { complianceCommands } from './compliance-commands.js';
import { lifecycleCommands } from './lifecycle-commands.js';
import { serveCommands } from './serve-command.js';
import { keysCommands } from './keys-command.js';
import type { VectorRebuildResult } from '../../projections/vectors/vector-rebuild.js';

const status: Handler = async (engine, _inv, out) => {
  const s = await engine.status();
  const stopped = s.projections.filter((p) => p.failed !== null);
  // A failed documents read model has no counts to give; status still reports the rest (ADR 23).
  const counts = stopped.some((p) => p.name === 'documents') ? null : { active: engine.documents.count('active'), all: engine.documents.count() };
  const m = s.maintenance;
  out.print({ ...s, memories: counts }, () =>
    [
      `log head: ${s.headPosition} (${s.log}${s.shared ? `, namespace ${s.shared.namespace}` : ''})`,
      counts ? `memories: ${counts.active} active, ${counts.all} in all` : 'memories: unknown (the documents read model failed)',
      ...stopped.map((p) => `FAILED ${p.name} at log position ${p.failed?.position}: ${p.failed?.error}; fix the cause, then \`lmem rebuild ${p.name}\``),
      ...[s.vectors, s.graphVectors].flatMap((v) => (v.failed ? [`FAILED ${v.name} at log position ${v.failed.position}: ${v.failed.error}; fix the cause, then \`lmem rebuild-index\``] : [])),
      `vectors: ${s.vectors.size} indexed, ${s.vectors.pending} pending, generation ${s.vectors.generation} at ${s.vectors.checkpoint}` +
        (s.vectors.building ? `, rebuilding g${s.vectors.building.generation} at ${s.vectors.building.checkpoint}` : ''),
      `graph entry vectors: ${s.graphVectors.size} indexed, ${s.graphVectors.pending} pending, generation ${s.graphVectors.generation} at ${s.graphVectors.checkpoint}`,
      ...[...s.vectors.setAside, ...s.graphVectors.setAside].map(
        (a) => `snapshot set aside: ${a.file} -> ${a.movedTo ?? '(not moved)'} at ${a.at}, rebuilt from the log: ${a.reason}`,
      ),
      `embedding: ${s.embedding.provider}, embeds ${s.embedding.languages}` +
        s.embedding.uncovered.map((u) => `; ${u.memories} memories in ${u.script} script skip the vector route`).join(''),
      `maintenance: ${m.state}${m.progress ? ` ${m.progress.done}/${m.progress.total}` : ''}` +
        (m.needsIndexRebuild ? ` (index rebuild needed: ${m.needsIndexRebuild})` : '') +
        (m.lastError ? ` (last error: ${m.lastError})` : ''),
      lifecycleLines(s.lifecycle),
      table([
        ['projection', 'version', 'generation', 'checkpoint', 'behind (events)', 'behind (ms)', 'rebuilding', 'failed at'],
        ...[...s.projections, { ...s.vectors, version: null }, { ...s.graphVectors, version: null }].map((p) => [
          p.name,
          p.version,
          p.generation,
          p.checkpoint,
          p.lag ? `${p.lag.events}${p.lag.capped ? '+' : ''}` : null,
          p.lag?.ms ?? null,
          p.building ? `g${p.building.generation} at ${p.building.checkpoint}` : null,
          p.failed?.position ?? null,
        ]),
      ]),
    ].join('\n'),
  );
};

function lifecycleLines(l: Awaited<ReturnType<MemoryEngine['status']>>['lifecycle']): string {
  const last = l.readModelFailed
    ? 'unknown (the lifecycle read model failed)'
    : l.lastTick ? `${l.lastTick.date} (${l.lastTick.decayed} decayed, ${l.lastTick.atomTransitions} atom transitions)` : 'none';
  return [
    `decay ticks: last ${last}, next ${l.nextTick ?? '-'}`,
    `consolidation: next ${l.nextConsolidation ?? 'on demand (lifecycle.consolidation.daily is off)'}`,
    `last backup: ${l.lastBackup ? `${l.lastBackup.backupId} (${l.lastBackup.reason}, ${l.lastBackup.takenAt})` : 'none'}`,
  ].join('\n');
}

const add: Handler = async (engine, inv, out) => {
  const receipt = await engine.writeMemory({
    text: required(inv, 0, 'text'),
    ...(number(inv, 'importance') === undefined ? {} : { importance: number(inv, 'importance') }),
    sessionId: str(inv, 'session') ?? null,
    personaId: str(inv, 'persona') ?? null,
    userId: str(inv, 'user') ?? null,
    topics: list(inv, 'topic'),
  });
  out.print(receipt, () => `written ${receipt.memoryId} at position ${receipt.position}`);
};

const events: Handler = async (engine, inv, out) => {
  const stream = str(inv, 'stream');
  const tail = integer(inv, 'tail', 1) ?? 20;
  const from = position(inv, 'from');
  let found;
  if (stream) found = await engine.log.readStream(stream);
  // Positions may have gaps (EventStoreDB), so the tail is read back from the head.
  else found = from === undefined ? await engine.log.readBackward({ limit: tail }) : await engine.log.readAll({ from, limit: tail });
  out.print(found, () =>
    found.length === 0
      ? 'no events'
      : table(
          [
            // Revisions, ids and times in full are in --json; the table keeps to the screen width.
            ['pos', 'time', 'stream', 'type', 'actor', 'what'],
            ...found.map((e) => [e.globalPosition, shortTime(e.metadata.occurredAt).slice(0, 16), shortIds(e.streamId), e.type, clip(e.metadata.actor, 16), summarize(e)]),
          ],
          screenWidth,
        ),
  );
};

/** What an event did, in one line; an event without a description shows its data. */
function summarize(event: RecordedEvent): string {
  try {
    return shortIds(describeEvent(event, ''));
  } catch {
    return shortIds(JSON.stringify(event.data));
  }
}

const rebuild: Handler = async (engine, inv, out) => {
  const name = required(inv, 0, 'projection');
  const known = engine.runner.status().map((p) => p.name);
  if (!known.includes(name)) throw new ValidationError('projection', `unknown projection ${name}; known: ${known.join(', ')}`);
  const progress = rebuildProgress(engine, await engine.log.headPosition());
  const result = await withProgress(out, `rebuilding ${name}`, progress, () => engine.runner.rebuild(name, 'requested from the command line'));
  out.print(result, () => `rebuilt ${result.projection} as generation ${result.generation} up to ${result.position}\ndigest ${result.digest}`);
};

const start: Handler = async (engine, inv, out) => {
  // Until the server exists, the main job is to open the store, bring every projection up to the
  // log, check and repair the indexes, and report.
  await engine.maintenance.start();
  // The missed decay ticks (and what follows them) run before the status is printed.
  await engine.lifecycle.scheduler.idle();
  const { repaired } = engine.maintenance.status();
  const warning = coverageWarning((await engine.status()).embedding);
  if (warning) process.stderr.write(`warning: ${warning}\n`);
  out.json ||
    out.print(null, () =>
      ['LivingMemory: embedded store open, projections caught up, indexes checked', ...repaired.map((r) => `repaired ${r.projection}: ${r.why}`)].join('\n'),
    );
  await status(engine, inv, out);
  // A read model still stopped at an event after start's replay is a finding, like verify's (ADR 23).
  const s = await engine.status();
  const stopped = s.projections.some((p) => p.failed !== null) || s.vectors.failed || s.graphVectors.failed;
  return stopped ? exitCodes.checkFailed : exitCodes.ok;
};

const search: Handler = async (engine, inv, out) => {
  const topK = integer(inv, 'top-k', 1);
  const answer = await engine.recall({
    query: required(inv, 0, 'query'),
    scope: recallScope(inv),
    ...(topK === undefined ? {} : { topK }),
    explain: inv.flags.explain === true,
  });
  out.print(answer, () =>
    answer.memories.length === 0
      ? 'nothing recalled'
      : answer.memories
          .map((m, i) => {
            const head = `${i + 1}. ${m.memoryId}  score ${m.score.toFixed(3)}  importance ${m.importance}  ${m.createdAt}`;
            const body = m.facts.length > 0 ? m.facts.map((f) => `   - ${f}`).join('\n') : `   ${m.text}`;
            const why = m.explain ? `\n${explainTable(m.explain)}` : '';
            return `${head}\n${body}${why}`;
          })
          .join('\n'),
  );
};

const rebuildIndex: Handler = async (engine, _inv, out) => {
  const progress = rebuildProgress(engine, await engine.log.headPosition());
  const result = await withProgress(out, 'rebuilding the indexes', progress, () => engine.maintenance.rebuildIndex());
  const line = (what: string, r: VectorRebuildResult | null) =>
    r ? `${what}: ${r.status}, generation ${r.generation}, ${r.size} vectors, ${r.pending} pending` : `${what}: not rebuilt`;
  out.print(result, () => [line('vector index', result.vectors), line('graph entry vectors', result.graphVectors)].join('\n'));
};

const rebuildGraph: Handler = async (engine, _inv, out) => {
  const progress = rebuildProgress(engine, await engine.log.headPosition());
  const { results, vectors } = await withProgress(out, 'rebuilding the graph', progress, async () => ({
    results: await engine.runner.rebuildAll(['graph', 'atoms'], 'requested'),
    vectors: await engine.maintenance.rebuildGraphVectors(),
  }));
  out.print({ projections: results, graphVectors: vectors }, () =>
    [
      ...results.map((r) => `rebuilt ${r.projection} as generation ${r.generation} up to ${r.position}`),
      `graph entry vectors: ${vectors.status}, generation ${vectors.generation}, ${vectors.size} vectors, ${vectors.pending} pending`,
    ].join('\n'));
};

export const commands: Readonly<Record<string, Command>> = {
  start: { run: start, summary: 'open the store, catch projections up, check and repair the indexes, report', creates: true },
  status: { run: status, summary: 'log head, projections and their checkpoints' },
  add: {
    run: add,
    summary: 'write a memory',
    args: ['<text>'],
    options: [opt.importance, ...subjectOptions, opt.topic],
    creates: true,
  },
  events: {
    run: events,
    summary: 'show the log, or one stream',
    options: [{ flags: '--stream <id>', description: 'one stream' }, opt.tail, opt.from],
  },
  rebuild: { run: rebuild, summary: 'replay a projection into a shadow generation and switch', args: ['<projection>'] },
  search: {
    run: search,
    summary: 'recall memories',
    args: ['<query>'],
    options: [opt.scope, ...subjectOptions, opt.topK, opt.explain],
  },
  'rebuild-index': { run: rebuildIndex, summary: 're-embed as needed, rebuild FTS and the memory and graph entry vectors' },
  'rebuild-graph': { run: rebuildGraph, summary: 'rebuild the graph, atom and graph entry vector projections' },
  erase: {
    run: erase,
    summary: "destroy a subject's key: its content reads as erased (ADR 19); --preview counts what it would shred",
    options: [
      ...subjectOptions, opt.reason,
      { flags: '--force', description: 'record the erasure even when the subject has no data' },
      { flags: '--preview', description: 'count what the erase would shred and write nothing (no --reason needed)' },
    ],
  },
  backup: { run: backup, summary: 'copy the store file while it runs (never into the data dir)', args: ['<path>'], options: [opt.force] },
  verify: {
    run: verify,
    summary: "check the log's hash chain and every projection against a replay (exit 3 on a finding)",
    options: [{ flags: '--anchor <position:hash>', description: 'a head hash from an earlier verify the chain must still contain' }],
  },
  ...memoryCommands,
  ...replayCommands,
  ...transferCommands,
  ...conversationCommands,
  ...complianceCommands,
  ...keysCommands,
  ...lifecycleCommands,
  ...serveCommands,
};
