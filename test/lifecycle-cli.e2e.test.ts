import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshCli, logHead } from './support/cli.js';

/*
 * The lifecycle as a user drives it from the README: `lmem tick`, `status`, `history`,
 * `consolidate preview|exec`, `restore`, `backups`, `restore-backup`, and the compliance export,
 * against a real store, in a time zone other than UTC.
 */

const dayMs = 86_400_000;
const zone = 'Europe/Paris';
const cli = freshCli('lmem-lifecycle-cli-', { LIVINGMEMORY_DECAY_TIME_ZONE: zone, LIVINGMEMORY_DECAY_HOUR: '4' });
const backupsDir = `${cli.dataDir}-backups`;
const exports = mkdtempSync(join(tmpdir(), 'lmem-lifecycle-export-'));
afterAll(() => {
  for (const dir of [cli.dataDir, backupsDir, exports]) rmSync(dir, { recursive: true, force: true });
});

const inDays = (days: number) => new Date(Date.now() + days * dayMs).toISOString();
const localDate = (iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));
const localHour = (iso: string) => Number(new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(new Date(iso)));

interface Lifecycle {
  lastTick: { date: string; decayed: number } | null;
  nextTick: string | null;
  lastBackup: { backupId: string; reason: string } | null;
}
const lifecycle = () => cli.json<{ lifecycle: Lifecycle }>(['status']).lifecycle;
/** What `history` says of each event (in full: the table clips to the screen width). */
const said = (id: string) => cli.json<{ entries: { description: string }[] }>(['history', id]).entries.map((e) => e.description).join('\n');
const active = () => cli.json<{ memories: { memoryId: string }[] }>(['list']).memories.map((m) => m.memoryId).sort();

describe('the lifecycle from the command line', () => {
  const texts = ['Ann planted tomatoes in the garden', 'Ann watered the garden tomatoes', 'Ann picked the first garden tomatoes'];
  let ids: string[] = [];
  let consolidated = '';
  beforeAll(() => {
    ids = texts.map((text) => cli.json<{ memoryId: string }>(['add', text, '--session', 's1', '--user', 'ann', '--importance', '0.3']).memoryId);
  });

  it('ticks once per date in the configured zone, and says when the next tick is', () => {
    const before = lifecycle();
    expect(before.lastTick).toBeNull();
    expect(localHour(before.nextTick as string)).toBe(4);
    // A day later, one date is due: the first 04:00 in Paris after the store's first event.
    const due = localDate(before.nextTick as string);
    const at = inDays(1);
    const tick = cli.json<{ ticks: { date: string; decayed: number }[]; decayed: number }>(['tick', '--at', at]);
    expect(tick).toMatchObject({ ticks: [{ date: due, decayed: 3 }], decayed: 3 });
    const head = logHead(cli.dataDir);
    expect(cli.run(['tick', '--at', at]).stdout).toMatch(new RegExp(`^nothing due by ${at}: the last tick was ${due}, the next date, \\d{4}-\\d{2}-\\d{2}, is due at `));
    expect(logHead(cli.dataDir)).toBe(head);
    const bad = cli.run(['tick', '--at', 'tomorrow']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/at/);
    const after = lifecycle();
    expect(after.lastTick).toMatchObject({ date: due, decayed: 3 });
    // The next tick is the day after the last one, at 04:00 in Paris.
    expect(localDate(after.nextTick as string) > due).toBe(true);
    expect(localHour(after.nextTick as string)).toBe(4);
    expect(cli.run(['status']).stdout).toMatch(new RegExp(`decay ticks: last ${due} \\(3 decayed`));
    expect(said(ids[0] as string)).toMatch(/importance decayed 0\.3 -> 0\.297 \(tick tick-/);
    const history = cli.run(['history', ids[0] as string]).stdout;
    expect(history).toMatch(/MemoryImportanceDecayed +system:lifecycle/);
    // The text table shows what happened whole, under its row: the decay's values and its tick.
    expect(history).toMatch(/^ {4}importance decayed 0\.3 -> 0\.297 \(tick tick-\d{4}-\d{2}-\d{2}\)$/m);
  });

  it('previews a consolidation without writing, then executes it after a backup, archiving the originals with the reason', () => {
    const at = inDays(10);
    const head = logHead(cli.dataDir);
    const plan = cli.json<{ groups: { memoryIds: string[] }[] }>(['consolidate', 'preview', '--at', at]);
    expect(plan.groups.map((g) => [...g.memoryIds].sort())).toEqual([[...ids].sort()]);
    expect(logHead(cli.dataDir)).toBe(head);
    const result = cli.json<{ consolidated: { memoryId: string; mergedMemoryIds: string[] }[] }>(['consolidate', 'exec', '--at', at]);
    expect(result.consolidated).toHaveLength(1);
    consolidated = result.consolidated[0]?.memoryId as string;
    expect(active()).toEqual([consolidated]);
    expect(lifecycle().lastBackup).toMatchObject({ reason: 'before-consolidation' });
    expect(cli.run(['backups']).stdout).toMatch(/before-consolidation/);
    expect(said(ids[1] as string)).toMatch(new RegExp(`merged into ${consolidated} \\(session: 3 memories of session s1[\\s\\S]*archived: consolidated into ${consolidated}`));
    expect(cli.run(['consolidate', 'preview', '--at', at]).stdout).toMatch(/0 groups/);
    expect(cli.run(['consolidate', 'nope']).code).toBe(2);
  });

  it('restores an archived original, and the compliance export shows the decays and the consolidation with their reasons', () => {
    expect(cli.run(['restore', ids[1] as string]).stdout).toMatch(/^restored /);
    expect(active()).toEqual([consolidated, ids[1]].sort());
    const out = join(exports, 'ann');
    expect(cli.run(['compliance-export', '--user', 'ann', '--out', out]).code).toBe(0);
    const records = readFileSync(join(out, 'records.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { record: string; memoryId: string; reason: string | null; details: Record<string, unknown> });
    const changes = records.filter((r) => r.record === 'memory_change');
    expect(changes.filter((r) => r.details.change === 'importance decayed').map((r) => r.memoryId).sort()).toEqual([...ids].sort());
    expect(changes.find((r) => r.details.change === 'importance decayed')?.reason).toMatch(/^decay tick tick-/);
    const merged = changes.filter((r) => r.details.change === 'consolidated');
    expect(merged.map((r) => r.memoryId).sort()).toEqual([consolidated, ...ids].sort());
    expect(merged[0]?.reason).toMatch(/3 memories of session s1/);
    expect(changes.filter((r) => r.details.change === 'archived')).toHaveLength(3);
  });

  it('restore-backup puts the store back as it was before the consolidation, after backing it up', () => {
    const backup = cli.json<{ backups: { backupId: string; reason: string }[] }>(['backups']).backups.find((b) => b.reason === 'before-consolidation');
    const restored = cli.json<{ safetyBackupId: string }>(['restore-backup', backup?.backupId as string]);
    expect(active()).toEqual([...ids].sort());
    const reasons = cli.json<{ backups: { backupId: string; reason: string }[] }>(['backups']).backups.map((b) => [b.backupId, b.reason]);
    expect(reasons).toContainEqual([restored.safetyBackupId, 'before-restore']);
    // A backup that is not there is bad input: exit 2, one line naming the argument.
    const missing = cli.run(['restore-backup', 'no-such-backup']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toMatch(/^lmem: invalid backup-id: no managed backup no-such-backup in /);
  });
});

describe('tick --at on a store that missed days', () => {
  const late = freshCli('lmem-lifecycle-catchup-', { LIVINGMEMORY_DECAY_TIME_ZONE: zone, LIVINGMEMORY_DECAY_HOUR: '4' });
  afterAll(() => {
    for (const dir of [late.dataDir, `${late.dataDir}-backups`]) rmSync(dir, { recursive: true, force: true });
  });

  it('ticks every missed date up to the time, in order, prints each, and appends nothing for a time before its last tick', () => {
    late.run(['add', 'Ben fed the cat', '--importance', '0.5']);
    const first = localDate(late.json<{ lifecycle: Lifecycle }>(['status']).lifecycle.nextTick as string);
    const at = inDays(4);
    const text = late.run(['tick', '--at', at]).stdout;
    const dates = [...text.matchAll(/^ {2}(\d{4}-\d{2}-\d{2}) as of \S+: 1 memories decayed/gm)].map((m) => m[1] as string);
    // Consecutive dates from the first one due, up to the last whose 04:00 has come by `at`.
    expect(dates[0]).toBe(first);
    expect(dates.length).toBeGreaterThanOrEqual(3);
    dates.slice(1).forEach((date, i) => expect(Date.parse(date) - Date.parse(dates[i] as string)).toBe(dayMs));
    expect([localDate(at), localDate(inDays(3))]).toContain(dates.at(-1));
    expect(text).toMatch(new RegExp(`^ticked ${dates.length} dates up to ${at}: ${dates.length} decays, 0 atom transitions, 0 archived/forgotten by policy$`, 'm'));
    const head = logHead(late.dataDir);
    expect(late.run(['tick', '--at', inDays(1)]).stdout.trim()).toBe(`${localDate(inDays(1))} is before the last tick (${dates.at(-1)}): nothing appended`);
    expect(late.run(['tick', '--at', at]).stdout).toMatch(/^nothing due by /);
    expect(logHead(late.dataDir)).toBe(head);
  });
});
