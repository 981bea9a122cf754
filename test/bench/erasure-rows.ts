/**
 * The erasure rows of the scale benchmark (issue 17, ADR 32): `engine.eraseSubject` of one user of
 * the corpus's 100 on a rebuilt store, beside the full rebuild of the same log measured earlier in
 * the same run. The engine takes a managed backup of the log before an erasure (issue 12, ADR 29),
 * a copy of the whole log; its share is timed on the way (the engine's own backups object, wrapped
 * here, not replaced), so the rows show the erasure with it and the erasure's own steps without it.
 */
import type { openTestEngine } from '../support/engine.js';
import { row, type BenchRow } from './report.js';
import { progress, timed, type Timing } from './support.js';

type Engine = Awaited<ReturnType<typeof openTestEngine>>;

export interface ErasureRowsOptions {
  readonly memories: number;
  /** The full rebuild of this log measured earlier in the run (rebuildAll + both vector indexes). */
  readonly fullRebuild: Timing;
  readonly meta: Record<string, string | number | boolean>;
}

const round = (seconds: number): number => Math.round(seconds * 1000) / 1000;

/** Times each call of `engine.backups[name]` into `spent`, calling the engine's own function. */
function timeCalls(engine: Engine, name: 'take' | 'shred', spent: { wall: number; cpu: number }): () => void {
  const backups = engine.backups as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = backups[name] as (...args: unknown[]) => Promise<unknown>;
  backups[name] = async (...args: unknown[]) => {
    let result: unknown;
    const t = await timed(async () => {
      result = await original(...args);
    });
    spent.wall += t.wall;
    spent.cpu += t.cpu;
    return result;
  };
  return () => {
    backups[name] = original;
  };
}

interface TimedErasure {
  readonly receipt: Awaited<ReturnType<Engine['eraseSubject']>>;
  readonly erasure: Timing;
  /** The same without the managed backup taken before it. */
  readonly steps: Timing;
  readonly backup: Timing;
  readonly shred: Timing;
}

/** `engine.eraseSubject` of one user, its backup and its shred of the managed backups timed inside the same call. */
async function timedErasure(engine: Engine, id: string, memories: number, what: string): Promise<TimedErasure> {
  progress(`projections 7. ${what}: erasure of user ${id} (one of 100) over ${memories} memories`);
  const backup = { wall: 0, cpu: 0 };
  const shred = { wall: 0, cpu: 0 };
  const restore = [timeCalls(engine, 'take', backup), timeCalls(engine, 'shred', shred)];
  let receipt: Awaited<ReturnType<Engine['eraseSubject']>> | undefined;
  let erasure: Timing;
  try {
    erasure = await timed(async () => {
      receipt = await engine.eraseSubject({ kind: 'user', id, reason: 'bench' });
    });
  } finally {
    restore.forEach((undo) => undo());
  }
  if (!receipt || receipt.counts.events === 0) throw new Error(`the erasure of ${id} reached nothing`);
  if (backup.wall === 0) throw new Error('the erasure took no managed backup before it');
  return { receipt, erasure, backup, shred, steps: { wall: erasure.wall - backup.wall, cpu: erasure.cpu - backup.cpu } };
}

/**
 * Two erasures, each beside the full rebuild: the store's first (the bench built its log outside
 * the engine, so the file is not known clean, ADR 19: the scrub vacuums it once), then another
 * user's on the same store, now known clean, as every erasure of a store this version created is.
 */
export async function erasureRows(engine: Engine, options: ErasureRowsOptions): Promise<BenchRow[]> {
  const { memories, fullRebuild, meta } = options;
  const first = await timedErasure(engine, 'user-0', memories, 'first erasure');
  if (!first.receipt.vacuumed) throw new Error('the first erasure of a store built outside the engine did not vacuum it');
  const next = await timedErasure(engine, 'user-1', memories, 'next erasure');
  if (next.receipt.vacuumed) throw new Error('the second erasure vacuumed a store its first left known clean');
  Object.assign(meta, {
    erasedEvents: next.receipt.counts.events,
    erasedMemories: next.receipt.counts.memories,
    erasureSteps: next.receipt.steps.join(' '),
    erasureSeconds: round(next.erasure.wall),
    erasureBackupSeconds: round(next.backup.wall),
    erasureShredBackupsSeconds: round(next.shred.wall),
    firstErasureSeconds: round(first.erasure.wall),
    firstErasureBackupSeconds: round(first.backup.wall),
    fullRebuildCpuSeconds: round(fullRebuild.cpu),
  });
  const whole =
    'seconds, lower is better: ours = engine.eraseSubject of one user (about 1% of the memories): a managed backup of the log, the key ' +
    'destroyed, every read model taking the erasure in place (ADR 32; FTS merged), the WAL emptied, the subject shredded from every managed ' +
    'backup; on a store known clean (ADR 19: every page written by the patched SQLite), so no VACUUM; ' +
    'raw = the full rebuild of the same log measured above in this run (rebuildAll + both vector indexes)';
  const own =
    'the same erasure without the managed backup taken before it (timed inside the same call: a copy and check of the whole log, ' +
    'a cost of the store by nature; meta.erasureBackupSeconds)';
  const once =
    "the store's first erasure (user-0), which vacuums the file once: its log was built outside the engine, so it is not known clean " +
    '(as a store an older version wrote); meta.firstErasureSeconds, meta.firstErasureBackupSeconds';
  const rebuilt = fullRebuild.wall;
  return [
    row(`erasure of 1 user of 100 vs a full rebuild (M=${memories})`, next.erasure.wall, rebuilt, 's', 0.02, { better: 'lower', note: whole }),
    row(`erasure of 1 user of 100, its steps without the backup (M=${memories})`, next.steps.wall, rebuilt, 's', 0.02, { better: 'lower', note: own }),
    row(`cpu: erasure of 1 user of 100 vs a full rebuild (M=${memories})`, next.erasure.cpu, fullRebuild.cpu, 'cpu-s', undefined, { better: 'lower' }),
    row(`cpu: erasure of 1 user of 100, its steps without the backup (M=${memories})`, next.steps.cpu, fullRebuild.cpu, 'cpu-s', undefined, { better: 'lower' }),
    row(`first erasure of the store (VACUUM once) vs a full rebuild (M=${memories})`, first.erasure.wall, rebuilt, 's', undefined, { better: 'lower', note: once }),
    row(`first erasure, its steps without the backup (M=${memories})`, first.steps.wall, rebuilt, 's', undefined, { better: 'lower' }),
  ];
}
