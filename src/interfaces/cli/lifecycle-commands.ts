import type { ManualTickReceipt } from '../../engine/lifecycle/manual-tick.js';
import { ValidationError } from '../../events/errors.js';
import { parsePointer } from '../../replay/pointer.js';
import { required, str, type Command, type Handler } from './args.js';
import { table } from './output.js';

/** `--at ISO`: a time with a zone (a position means nothing to a tick). */
function atFlag(value: string | undefined, flag = 'at'): Date | undefined {
  if (value === undefined) return undefined;
  const pointer = parsePointer(value, flag);
  if (!('time' in pointer)) throw new ValidationError(flag, `must be an ISO-8601 time with a zone, got "${value}"`);
  return pointer.time;
}

/** What a manual tick did, one line a date ticked, or why it appended nothing. */
function tickLines(r: ManualTickReceipt): string {
  const due = r.next ? `the next date, ${r.next.date}, is due at ${r.next.at}` : '';
  if (r.nothing === 'empty-store') return 'the store is empty: nothing to tick';
  if (r.nothing === 'before-last-tick') return `${r.date} is before the last tick (${r.lastTickedDate}): nothing appended`;
  if (r.nothing === 'not-due') return `nothing due by ${r.at}: ${r.lastTickedDate ? `the last tick was ${r.lastTickedDate}, ` : ''}${due}`;
  return [
    `ticked ${r.ticks.length} date${r.ticks.length === 1 ? '' : 's'} up to ${r.at}: ${r.decayed} decays, ${r.atomTransitions} atom transitions, ${r.policy} archived/forgotten by policy`,
    ...r.ticks.map((t) => `  ${t.date} as of ${t.asOf}: ${t.decayed} memories decayed, ${t.atomTransitions} atom transitions, ${t.policy} by policy (position ${t.position})`),
    ...(due ? [due] : []),
  ].join('\n');
}

const tick: Handler = async (engine, inv, out) => {
  const receipt = await engine.lifecycle.tick(atFlag(str(inv, 'at')));
  out.print(receipt, () => tickLines(receipt));
};

const consolidate: Handler = async (engine, inv, out) => {
  const mode = inv.positionals[0] ?? 'preview';
  if (mode !== 'preview' && mode !== 'exec') throw new ValidationError('mode', `must be preview or exec, got "${mode}"`);
  const at = atFlag(str(inv, 'at'));
  const groupLines = (groups: readonly { memoryIds: readonly string[]; importance: number; scope: { sessionId: string | null } }[]) =>
    groups.map((g, i) => `  ${i + 1}. ${g.memoryIds.length} memories (session ${g.scope.sessionId ?? '-'}, importance ${g.importance}): ${g.memoryIds.join(', ')}`);
  if (mode === 'preview') {
    const plan = await engine.lifecycle.consolidatePreview(at);
    out.print(plan, () => [`${plan.candidates} candidates, ${plan.groups.length} groups by ${plan.grouping} (nothing written)`, ...groupLines(plan.groups)].join('\n'));
    return;
  }
  const result = await engine.lifecycle.consolidate(at);
  out.print(result, () =>
    [
      `${result.consolidated.length} groups consolidated, ${result.failed.length} failed (${result.candidates} candidates by ${result.grouping})`,
      ...result.consolidated.map((c) => `  ${c.memoryId} <- ${c.mergedMemoryIds.join(', ')}`),
      ...result.failed.map((f) => `  failed ${f.memoryIds.join(', ')}: ${f.error}`),
    ].join('\n'),
  );
  return result.failed.length > 0 ? 1 : 0;
};

const backups: Handler = async (engine, _inv, out) => {
  const list = engine.backups.list();
  out.print({ dir: engine.backups.dir, backups: list }, () =>
    list.length === 0
      ? `no managed backups in ${engine.backups.dir}`
      : table([['id', 'reason', 'taken at', 'position', 'bytes', 'version'], ...list.map((b) => [b.backupId, b.reason, b.takenAt, b.position, b.bytes, b.packageVersion])]),
  );
};

const restoreBackup: Handler = async (engine, inv, out) => {
  const receipt = await engine.restoreBackup(required(inv, 0, 'backup-id'));
  out.print(receipt, () =>
    `restored backup ${receipt.backupId} (log up to position ${receipt.position}); the store before it is backup ${receipt.safetyBackupId}; read models are rebuilt at the next open`,
  );
};

const at = { flags: '--at <time>', description: 'as of this ISO-8601 time with a zone (default: now)', value: (flag: string, raw: string) => atFlag(raw, flag) };

/** The lifecycle's commands (ADR 29); `restore <memory-id>` (an archived or consolidated original) is in memory-commands. */
export const lifecycleCommands: Readonly<Record<string, Command>> = {
  tick: { run: tick, summary: 'tick every missed date up to now, or up to a time, in order (idempotent by date)', options: [at] },
  consolidate: {
    run: consolidate,
    summary: 'group old, unimportant memories and merge each group into one (preview writes nothing)',
    args: ['[mode]'],
    options: [at],
  },
  backups: { run: backups, summary: 'list the managed backups' },
  'restore-backup': { run: restoreBackup, summary: "put a managed backup in the store's place (the store is backed up first)", args: ['<backup-id>'] },
};
