import { ValidationError } from '../../events/errors.js';
import type { ScopeMode } from '../../queries/recall/types.js';
import type { MemoryDiff } from '../../replay/diff.js';
import { number, required, str, type Command, type Handler } from './args.js';
import { table } from './output.js';

const history: Handler = async (engine, inv, out) => {
  const id = required(inv, 0, 'memory-id');
  const found = await engine.history(id);
  if (!found) throw new ValidationError('memory-id', `no memory or atom ${id} in the log`);
  out.print(found, () =>
    [
      `${found.kind} ${found.id}: ${found.entries.length} events`,
      table([
        ['position', 'occurred at', 'type', 'actor', 'correlation', 'causation', 'what'],
        ...found.entries.map((e) => [e.position, e.occurredAt, e.type, e.actor, e.correlationId, e.causationId, e.description]),
      ]),
    ].join('\n'),
  );
};

const recallAt: Handler = async (engine, inv, out) => {
  const at = str(inv, 'at');
  if (at === undefined) throw new ValidationError('at', 'is required: a log position or an ISO-8601 time');
  const topK = number(inv, 'top-k');
  const past = await engine.at(at);
  try {
    const answer = await past.recall({
      query: required(inv, 0, 'query'),
      scope: { mode: (str(inv, 'scope') ?? 'global') as ScopeMode, sessionId: str(inv, 'session') ?? null, personaId: str(inv, 'persona') ?? null, userId: str(inv, 'user') ?? null },
      ...(topK === undefined ? {} : { topK }),
      explain: inv.flags.explain === true,
    });
    const result = { position: past.position, asOf: past.asOf, memories: answer.memories, injection: answer.injection };
    out.print(result, () =>
      [
        `as of position ${past.position} (${past.asOf}):`,
        answer.memories.length === 0
          ? 'nothing recalled'
          : answer.memories.map((m, i) => `${i + 1}. ${m.memoryId}  score ${m.score.toFixed(3)}  importance ${m.importance}\n   ${m.text}`).join('\n'),
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
  history: { run: history, usage: 'history <memory-id|atom-id>  every event that touched it, with actor, correlation, causation' },
  recall: { run: recallAt, usage: 'recall --at <position|ISO time> <query> [--scope ...] [--session S] [--user U] [--top-k N]  recall as it ran then' },
  diff: { run: diff, usage: 'diff <from> <to>           memories added, changed, archived, forgotten between two positions or times' },
};
