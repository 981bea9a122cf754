import { ValidationError } from '../../events/errors.js';
import type { MemoryDiff } from '../../replay/diff.js';
import { integer, required, str, type Command, type Handler } from './args.js';
import { opt, recallScope, subjectOptions } from './options.js';
import { clip, screenWidth, shortIds, shortTime, table } from './output.js';
import { resolveId } from './ids.js';
import { explainTable } from './explain-table.js';

const history: Handler = async (engine, inv, out) => {
  const id = resolveId(engine, required(inv, 0, 'id'), 'id', ['memory', 'atom']);
  const found = await engine.history(id);
  if (!found) throw new ValidationError('id', `no memory or atom ${id} in the log`);
  out.print(found, () =>
    [
      `${found.kind} ${found.id}: ${found.entries.length} events`,
      // Causation and full ids are in --json; the table keeps to the screen width, wrapping what happened.
      table(
        [
          ['pos', 'occurred at', 'type', 'actor', 'correlation', 'what'],
          ...found.entries.map((e) => [e.position, shortTime(e.occurredAt), e.type, clip(e.actor, 20), clip(shortIds(e.correlationId), 24), shortIds(e.description)]),
        ],
        screenWidth,
        // What happened and why (a decay's values, a transition's or a consolidation's reason) is shown whole.
        'below',
      ),
    ].join('\n'),
  );
};

const recallAt: Handler = async (engine, inv, out) => {
  const at = str(inv, 'at');
  if (at === undefined) throw new ValidationError('at', 'is required: a log position or an ISO-8601 time');
  const topK = integer(inv, 'top-k', 1);
  const past = await engine.at(at);
  try {
    const answer = await past.recall({
      query: required(inv, 0, 'query'),
      scope: recallScope(inv),
      ...(topK === undefined ? {} : { topK }),
      explain: inv.flags.explain === true,
    });
    const result = { position: past.position, asOf: past.asOf, memories: answer.memories, injection: answer.injection };
    out.print(result, () =>
      [
        `as of position ${past.position} (${past.asOf}):`,
        answer.memories.length === 0
          ? 'nothing recalled'
          : answer.memories.map((m, i) => `${i + 1}. ${m.memoryId}  score ${m.score.toFixed(3)}  importance ${m.importance}\n   ${m.text}${m.explain ? `\n${explainTable(m.explain)}` : ''}`).join('\n'),
      ].join('\n'),
    );
  } finally {
    past.close();
  }
};

const describeDiff = (d: MemoryDiff): string[] => [
  ...d.added.map((m) => `+ ${m.memoryId}  ${JSON.stringify(m.text)}`),
  ...d.changed.flatMap((c) => c.changes.map((f) => `~ ${c.memoryId}  ${f.field}: ${JSON.stringify(f.before)} -> ${JSON.stringify(f.after)}`)),
  ...d.archived.map((a) => `a ${a.memoryId}  archived: ${a.reason ?? '-'}`),
  ...d.forgotten.map((f) => `- ${f.memoryId}  forgotten: ${f.reason ?? '-'}`),
];

const diff: Handler = async (engine, inv, out) => {
  const result = await engine.diff(required(inv, 0, 'from'), required(inv, 1, 'to'));
  out.print(result, () => {
    const lines = describeDiff(result);
    const head = `from position ${result.from.position} (${result.from.asOf}) to ${result.to.position} (${result.to.asOf}): ` +
      `${result.added.length} added, ${result.changed.length} changed, ${result.archived.length} archived, ${result.forgotten.length} forgotten`;
    return [head, ...lines].join('\n');
  });
};

/** Audit and time travel: registered beside the other commands. */
export const replayCommands: Readonly<Record<string, Command>> = {
  history: { run: history, summary: 'every event that touched a memory or atom, with actor, correlation, causation', args: ['<id>'] },
  recall: {
    run: recallAt,
    summary: 'recall on the store as it was at a past position or time (read-only)',
    args: ['<query>'],
    options: [{ flags: '--at <position|time>', description: 'a log position or an ISO-8601 time (required)' }, opt.scope, ...subjectOptions, opt.topK, opt.explain],
  },
  diff: { run: diff, summary: 'memories added, changed, archived, forgotten between two positions or times', args: ['<from>', '<to>'] },
};
