import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliIn, type CliRun } from '../support/cli.js';
import { runUntilKilled } from '../support/faults/kill.js';
import { recordFaultRow } from '../support/faults/table.js';
import { flipOneByteOfEvent } from '../support/faults/tamper.js';

// Issue 11's fault suite, tamper matrix: one damage at a time, each on a fresh copy of one store
// left by a writer SIGKILLed after its vector snapshots reached the log's head (so the WAL still
// holds its frames). Each damage is either found by `verify` (exit 3) and repaired by `start`, or
// healed on open; the repaired store equals the undamaged one, digest by digest; no store is bricked.
const root = mkdtempSync(join(tmpdir(), 'lmem-fault-tamper-'));
const base = join(root, 'base');
const db = 'livingmemory.db';
const writer = join(process.cwd(), 'test/support/faults/writer-child.mjs');
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Verified {
  readonly ok: boolean;
  readonly chain: { headPosition: number; headHash: string; firstBreak: { position: number } | null };
  readonly projections: { name: string; status: string; live: string | null }[];
}
const verified = (run: CliRun): Verified => JSON.parse(run.stdout) as Verified;
// The read models whose content the damage could change; bookkeeping events of a repair move the
// others (which positions touched what) without changing any memory.
const content = ['documents', 'fts', 'memory_sources', 'graph', 'atoms', 'vectors', 'graph_vectors'];
const digests = (v: Verified) => Object.fromEntries(v.projections.filter((p) => content.includes(p.name)).map((p) => [p.name, p.live]));
let sound: Record<string, string | null>;
let head: { position: number; hash: string };

beforeAll(async () => {
  const killed = await runUntilKilled([writer, base, 'tampex', '14', 'hold'], { when: (out) => out.includes('held\n'), env: {} });
  expect(killed.ended).toBe('SIGKILL');
  expect(statSync(join(base, `${db}-wal`)).size).toBeGreaterThan(0);
  // The undamaged store's digests, read on a copy (opening it checkpoints the WAL).
  const copy = join(root, 'sound');
  cpSync(base, copy, { recursive: true });
  const v = verified(cliIn(copy).run(['verify', '--json']));
  expect(v.ok).toBe(true);
  sound = digests(v);
  head = { position: v.chain.headPosition, hash: v.chain.headHash };
}, 180_000);

/** A fresh copy of the base store, damaged by `damage`. */
function damaged(name: string, damage: (dir: string) => void): ReturnType<typeof cliIn> {
  const dir = join(root, name);
  cpSync(base, dir, { recursive: true });
  damage(dir);
  return cliIn(dir);
}

const liveTable = (file: string, projection: string, table: string): string => {
  const reader = new Database(file, { readonly: true });
  try {
    return `${table}_g${reader.prepare(`SELECT generation FROM projection_generations WHERE name = ? AND status = 'live'`).pluck().get(projection) as number}`;
  } finally {
    reader.close();
  }
};
const write = (file: string, sql: string, ...params: unknown[]) => {
  const writerDb = new Database(file);
  try {
    writerDb.prepare(sql).run(...params);
  } finally {
    writerDb.close();
  }
};
const snapshotOf = (dir: string, projection: string): string => {
  const name = readdirSync(join(dir, 'vectors')).find((f) => new RegExp(`^${projection}-g\\d+\\.snap$`).test(f));
  if (!name) throw new Error(`no ${projection} snapshot in ${dir}`);
  return join(dir, 'vectors', name);
};
/** Changes the vector blob of the `n`th cache row with `change`. */
const cacheRow = (n: number, change: (vector: Buffer) => Buffer) => (dir: string) => {
  const file = join(dir, db);
  const reader = new Database(file);
  try {
    const row = reader.prepare('SELECT fingerprint, content_hash, vector FROM embedding_cache ORDER BY content_hash LIMIT 1 OFFSET ?').get(n) as { fingerprint: string; content_hash: string; vector: Buffer };
    reader.prepare('UPDATE embedding_cache SET vector = ? WHERE fingerprint = ? AND content_hash = ?').run(change(Buffer.from(row.vector)), row.fingerprint, row.content_hash);
  } finally {
    reader.close();
  }
};

interface Damage {
  readonly name: string;
  readonly damage: (dir: string) => void;
}

/** One class of damage (the issue's five); its variants are applied together, or one by one with LMEM_FAULT_FULL=1. */
interface Case {
  readonly name: string;
  readonly variants: readonly Damage[];
  /** 'found': verify exits 3, start repairs it. 'healed': verify exits 0 straight away (repaired on open). 'kept': verify exits 3 for good (the log itself changed). */
  readonly expect: 'found' | 'healed' | 'kept';
  /** Whether the repaired store must equal the sound one by digest (not when the log itself lost or changed events). */
  readonly same: boolean;
  /** Variants that cannot be applied together with the others (run only one by one). */
  readonly alone?: readonly Damage[];
}

const walCut = (size: (bytes: number) => number) => (dir: string) => truncateSync(join(dir, `${db}-wal`), size(statSync(join(dir, `${db}-wal`)).size));
const classes: Case[] = [
  { name: 'event byte changed', variants: [{ name: 'one byte of an event', damage: (dir) => flipOneByteOfEvent(join(dir, db), 'trial-tampex', 2) }], expect: 'kept', same: false },
  {
    name: 'WAL truncated',
    variants: [{ name: 'cut in the middle', damage: walCut((n) => Math.floor(n / 2)) }],
    alone: [{ name: 'cut to its header', damage: walCut(() => 32) }],
    expect: 'healed',
    same: false,
  },
  {
    name: 'vector snapshot damaged',
    variants: [
      { name: 'memory snapshot truncated', damage: (dir) => truncateSync(snapshotOf(dir, 'vectors'), 100) },
      {
        name: 'graph entry snapshot byte changed',
        damage: (dir) => {
          const path = snapshotOf(dir, 'graph_vectors');
          const bytes = readFileSync(path);
          bytes[bytes.length - 3] = (bytes[bytes.length - 3] ?? 0) ^ 0x10;
          writeFileSync(path, bytes);
        },
      },
    ],
    expect: 'healed',
    same: true,
  },
  {
    name: 'projection row changed',
    variants: [
      { name: 'documents row text', damage: (dir) => write(join(dir, db), `UPDATE ${liveTable(join(dir, db), 'documents', 'documents')} SET text = 'tampered' WHERE rowid = 3`) },
      { name: 'graph entry row deleted', damage: (dir) => write(join(dir, db), `DELETE FROM ${liveTable(join(dir, db), 'graph', 'graph_entries')} WHERE rowid = 2`) },
    ],
    expect: 'found',
    same: true,
  },
  {
    name: 'embedding cache row changed',
    variants: [
      { name: 'a vector value', damage: cacheRow(0, (v) => (v.writeFloatLE(v.readFloatLE(0) + 0.5, 0), v)) },
      { name: 'a blob cut to 3 bytes', damage: cacheRow(1, (v) => v.subarray(0, 3)) },
      { name: 'a vector of half the length', damage: cacheRow(2, (v) => v.subarray(0, v.length / 2)) },
    ],
    expect: 'found',
    same: true,
  },
];
const full = process.env.LMEM_FAULT_FULL === '1';
const cases = classes.flatMap((c) => [
  { ...c, damage: (dir: string) => c.variants.forEach((v) => v.damage(dir)) },
  ...(full ? [...c.variants, ...(c.alone ?? [])].map((v) => ({ ...c, name: `${c.name}: ${v.name}`, damage: v.damage })) : []),
]);

const results: { name: string; problems: string[]; bricked: boolean; wrongExit: boolean }[] = [];
afterAll(() => {
  recordFaultRow({
    class: 'tamper matrix',
    trials: results.length,
    failures: results.filter((r) => r.problems.length > 0).length,
    lost: 0,
    bricked: results.filter((r) => r.bricked).length,
    wrongExitCodes: results.filter((r) => r.wrongExit).length,
    markerFiles: 0,
    note: results.filter((r) => r.problems.length > 0).map((r) => `${r.name}: ${r.problems.join('; ')}`).join(' | ') || `${results.length} kinds of damage`,
  });
});

describe('tamper matrix (fault suite)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const lmem = damaged(c.name.replace(/\W+/g, '-'), c.damage);
      const problems: string[] = [];
      let bricked = false;
      let wrongExit = false;
      const differing = (run: CliRun) => (run.stdout ? verified(run).projections.filter((p) => p.status !== 'ok').map((p) => `${p.name} ${p.status}`).join(', ') : run.stderr.trim().slice(0, 200));
      const first = lmem.run(['verify', '--json']);
      const wanted = c.expect === 'healed' ? 0 : 3;
      if (first.code !== wanted) (wrongExit = true, problems.push(`verify exited ${first.code}, expected ${wanted} (${differing(first)})`));
      const start = lmem.run(['start']);
      if (start.code !== 0) (bricked = true, problems.push(`start exited ${start.code}: ${start.stderr.trim().slice(0, 200)}`));
      const after = lmem.run(['verify', '--json']);
      const report = after.stdout ? verified(after) : undefined;
      if (c.expect === 'kept') {
        if (after.code !== 3 || !report?.chain.firstBreak) problems.push(`verify after start exited ${after.code} without naming the break`);
        if (report && report.projections.some((p) => p.status !== 'ok')) problems.push(`after start a projection still differs from a replay (${differing(after)})`);
      } else if (after.code !== 0) {
        bricked = true;
        problems.push(`verify after start exited ${after.code} (${differing(after)})`);
      }
      if (c.same && report) {
        const repaired = digests(report);
        const differ = Object.keys(sound).filter((name) => repaired[name] !== sound[name]);
        if (differ.length > 0) problems.push(`the repaired store differs from the sound one in ${differ.join(', ')}`);
      }
      if (c.name.startsWith('WAL') && (report?.chain.headPosition ?? 0) < head.position) {
        // The lost tail is invisible without an anchor; with the head exported before, verify finds it.
        const anchored = lmem.run(['verify', '--anchor', `${head.position}:${head.hash}`]);
        if (anchored.code !== 3) (wrongExit = true, problems.push(`verify --anchor of the lost head exited ${anchored.code}`));
      }
      // Still a working store: it serves a search and takes a write.
      for (const args of [['search', 'person met city'], ['add', 'written after the damage']]) {
        const run = lmem.run(args);
        if (run.code !== 0) (bricked = true, problems.push(`${args[0]} exited ${run.code}: ${run.stderr.trim().slice(0, 200)}`));
      }
      results.push({ name: c.name, problems, bricked, wrongExit });
      expect(problems).toEqual([]);
    }, 180_000);
  }
});
