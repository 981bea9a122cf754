import { ValidationError } from '../../events/errors.js';
import type { MemoryDocument } from '../../queries/documents.js';
import { integer, list, number, oneOf, required, str, type Command, type Handler, type Invocation } from './args.js';
import { resolveId } from './ids.js';
import { opt, subjectOptions } from './options.js';
import { clip, screenWidth, shortId, table } from './output.js';
import type { WriteReceipt } from '../../engine/engine.js';

const statuses = ['active', 'archived', 'forgotten', 'erased', 'all'] as const;
const memoryId = (engine: Parameters<Handler>[0], inv: Invocation): string => resolveId(engine, required(inv, 0, 'memory-id'), 'memory-id');

const done = (verb: string, receipt: WriteReceipt, already: string): string =>
  receipt.position === null ? `${receipt.memoryId} ${already}` : `${verb} ${receipt.memoryId} at position ${receipt.position}`;

const list_: Handler = async (engine, inv, out) => {
  const status = (str(inv, 'status') ?? 'active') as (typeof statuses)[number];
  const filter = { sessionId: str(inv, 'session'), personaId: str(inv, 'persona'), userId: str(inv, 'user') };
  const limit = integer(inv, 'limit', 0) ?? 50;
  const found = engine.documents.list({
    ...Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)),
    ...(status === 'all' ? {} : { status }),
    limit: limit === 0 ? null : limit,
  });
  out.print({ memories: found, count: found.length }, () =>
    found.length === 0
      ? 'no memories'
      : table(
          [
            ['id', 'created', 'importance', 'status', 'session', 'text'],
            ...found.map((m) => [shortId(m.memoryId), m.createdAt.slice(0, 16), m.importance.toFixed(2), m.status, m.sessionId && clip(m.sessionId, 12), m.text]),
          ],
          screenWidth,
        ),
  );
};

const describe = (m: MemoryDocument): string =>
  [
    `memory ${m.memoryId} (${m.status}${m.statusReason ? `: ${m.statusReason}` : ''})`,
    `  importance ${m.importance}, created ${m.createdAt}, updated ${m.updatedAt}, recalled ${m.accessCount} times${m.lastAccessedAt ? `, last ${m.lastAccessedAt}` : ''}`,
    `  session ${m.sessionId ?? '-'}, persona ${m.personaId ?? '-'}, user ${m.userId ?? '-'}`,
    ...(m.topics.length ? [`  topics: ${m.topics.join(', ')}`] : []),
    ...(m.keyFacts.length ? [`  key facts: ${m.keyFacts.join('; ')}`] : []),
    ...(m.sentiment ? [`  sentiment: ${m.sentiment}`] : []),
    '',
    m.text,
  ].join('\n');

const show: Handler = async (engine, inv, out) => {
  const id = memoryId(engine, inv);
  const found = engine.documents.get(id);
  if (!found) throw new ValidationError('memory-id', `no memory ${id}`);
  out.print(found, () => describe(found));
};

const update: Handler = async (engine, inv, out) => {
  const id = memoryId(engine, inv);
  const importance = number(inv, 'importance');
  const changes = {
    ...(str(inv, 'text') === undefined ? {} : { text: str(inv, 'text') }),
    ...(importance === undefined ? {} : { importance }),
    ...(inv.flags.topic === undefined ? {} : { topics: list(inv, 'topic') }),
    ...(str(inv, 'sentiment') === undefined ? {} : { sentiment: str(inv, 'sentiment') }),
  };
  if (Object.keys(changes).length === 0) throw new ValidationError('changes', 'give at least one of --text, --importance, --topic, --sentiment');
  const receipt = await engine.updateMemory(id, changes);
  out.print(receipt, () => done('updated', receipt, 'already had these values: nothing recorded'));
};

const archive: Handler = async (engine, inv, out) => {
  const receipt = await engine.archiveMemory(memoryId(engine, inv), str(inv, 'reason'));
  out.print(receipt, () => done('archived', receipt, 'was already archived'));
};

const restore: Handler = async (engine, inv, out) => {
  const receipt = await engine.restoreMemory(memoryId(engine, inv));
  out.print(receipt, () => done('restored', receipt, 'is already active'));
};

const forget: Handler = async (engine, inv, out) => {
  const receipt = await engine.forgetMemory(memoryId(engine, inv), str(inv, 'reason'));
  out.print(receipt, () => done('forgot', receipt, 'was already forgotten'));
};

const idArg = ['<memory-id>'];

/** One memory at a time: list, show, change, archive, restore, forget (ids by unique prefix). */
export const memoryCommands: Readonly<Record<string, Command>> = {
  list: {
    run: list_,
    summary: 'list memories, newest first',
    options: [
      ...subjectOptions,
      { flags: '--status <status>', description: `${statuses.join(', ')} (default active)`, value: oneOf(...statuses) },
      { ...opt.limit, description: 'at most this many (default 50; 0 for all)' },
    ],
  },
  show: { run: show, summary: 'one memory: text, scope, importance, status, topics, key facts', args: idArg },
  update: {
    run: update,
    summary: "change a memory's text, importance, topics or sentiment (recorded as MemoryUpdated)",
    args: idArg,
    options: [
      { flags: '--text <text>', description: 'new text (its facts are derived again)' },
      opt.importance,
      { ...opt.topic, description: 'the topics, replacing the old ones (repeatable)' },
      { flags: '--sentiment <text>', description: 'new sentiment' },
    ],
  },
  archive: { run: archive, summary: 'archive a memory: kept, no longer recalled', args: idArg, options: [opt.reason] },
  restore: { run: restore, summary: 'bring an archived memory back', args: idArg },
  forget: { run: forget, summary: 'forget a memory (the event stays in the log)', args: idArg, options: [opt.reason] },
};
