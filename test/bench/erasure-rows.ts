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

export async function erasureRows(engine: Engine, options: ErasureRowsOptions): Promise<BenchRow[]> {
  const { memories, fullRebuild, meta } = options;
  const subject = { kind: 'user' as const, id: 'user-0' };
  progress(`projections 7. erasure of ${subject.kind} ${subject.id} (one of 100) over ${memories} memories`);
  const backup = { wall: 0, cpu: 0 };
  const shred = { wall: 0, cpu: 0 };
  const restore = [timeCalls(engine, 'take', backup), timeCalls(engine, 'shred', shred)];
  let receipt: Awaited<ReturnType<Engine['eraseSubject']>> | undefined;
  let erasure: Timing;
  try {
    erasure = await timed(async () => {
      receipt = await engine.eraseSubject({ ...subject, reason: 'bench' });
    });
  } finally {
    restore.forEach((undo) => undo());
  }
  if (!receipt || receipt.counts.events === 0) throw new Error(`the erasure of ${subject.id} reached nothing`);
  if (backup.wall === 0) throw new Error('the erasure took no managed backup before it');
  const steps = { wall: erasure.wall - backup.wall, cpu: erasure.cpu - backup.cpu };
  Object.assign(meta, {
    erasedEvents: receipt.counts.events,
    erasedMemories: receipt.counts.memories,
    erasureSteps: receipt.steps.join(' '),
    erasureSeconds: round(erasure.wall),
    erasureBackupSeconds: round(backup.wall),
    erasureShredBackupsSeconds: round(shred.wall),
    fullRebuildCpuSeconds: round(fullRebuild.cpu),
  });
  const whole =
    'seconds, lower is better: ours = engine.eraseSubject of one user (about 1% of the memories): a managed backup of the log, the key ' +
    'destroyed, every read model taking the erasure in place (ADR 32; FTS merged), the WAL emptied and the file vacuumed, the subject shredded from every managed ' +
    'backup; raw = the full rebuild of the same log measured above in this run (rebuildAll + both vector indexes)';
  const own =
    'the same erasure without the managed backup taken before it (timed inside the same call: a copy and check of the whole log, ' +
    'a cost of the store by nature; meta.erasureBackupSeconds)';
  return [
    row(`erasure of 1 user of 100 vs a full rebuild (M=${memories})`, erasure.wall, fullRebuild.wall, 's', 0.02, { better: 'lower', note: whole }),
    row(`erasure of 1 user of 100, its steps without the backup (M=${memories})`, steps.wall, fullRebuild.wall, 's', 0.02, { better: 'lower', note: own }),
    row(`cpu: erasure of 1 user of 100 vs a full rebuild (M=${memories})`, erasure.cpu, fullRebuild.cpu, 'cpu-s', undefined, { better: 'lower' }),
    row(`cpu: erasure of 1 user of 100, its steps without the backup (M=${memories})`, steps.cpu, fullRebuild.cpu, 'cpu-s', undefined, { better: 'lower' }),
  ];
}
