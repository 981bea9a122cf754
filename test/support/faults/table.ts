import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One class of fault trials and what it found. Every fault test file records its rows here (a JSON
 * file each under test-results/faults, written from the test's own process), and the fault reporter
 * prints them as one table when the run ends.
 */
export interface FaultRow {
  readonly class: string;
  readonly trials: number;
  /** Trials where any check failed (the other columns count the kinds that matter most). */
  readonly failures: number;
  /** Acknowledged writes missing after the fault. */
  readonly lost: number;
  /** Stores that no longer opened, or that `start` could not bring back to a clean `verify`. */
  readonly bricked: number;
  /** Exit codes other than the documented one. */
  readonly wrongExitCodes: number;
  /** Files holding an erased subject's marker text. */
  readonly markerFiles: number;
  /** What was done per trial, for the reader of the table (kill points, sizes). */
  readonly note?: string;
}

export const faultResultsDir = join(process.cwd(), 'test-results', 'faults');

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** Writes (or replaces) the row of one class; call it even when the trials failed, so the table shows them. */
export function recordFaultRow(row: FaultRow): void {
  mkdirSync(faultResultsDir, { recursive: true });
  writeFileSync(join(faultResultsDir, `${slug(row.class)}.json`), `${JSON.stringify(row)}\n`);
}

export function readFaultRows(): FaultRow[] {
  let names: string[];
  try {
    names = readdirSync(faultResultsDir).filter((n) => n.endsWith('.json')).sort();
  } catch {
    return [];
  }
  return names.map((n) => JSON.parse(readFileSync(join(faultResultsDir, n), 'utf8')) as FaultRow);
}

export function clearFaultRows(): void {
  rmSync(faultResultsDir, { recursive: true, force: true });
}

const columns = ['trials', 'failures', 'lost', 'bricked', 'wrongExitCodes', 'markerFiles'] as const;
const headings = ['class', 'trials', 'failures', 'lost', 'bricked', 'wrong exit codes', 'files with erased markers'];

/** The rows, a total line, and each row's note below: plain text, columns aligned. */
export function faultTable(rows: readonly FaultRow[]): string {
  const total = Object.fromEntries(columns.map((c) => [c, rows.reduce((sum, r) => sum + r[c], 0)]));
  const cells = [
    headings,
    ...rows.map((r) => [r.class, ...columns.map((c) => String(r[c]))]),
    ['total', ...columns.map((c) => String(total[c]))],
  ];
  const widths = headings.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ');
  const notes = rows.filter((r) => r.note).map((r) => `  ${r.class}: ${r.note}`);
  return [line(cells[0] ?? []), ...cells.slice(1).map(line), ...(notes.length > 0 ? ['', ...notes] : [])].join('\n');
}

type Counts = { -readonly [K in (typeof columns)[number]]: number };

/**
 * The row of a class whose trials are separate `it`s: each trial counts, a trial that throws is a
 * failure (and rethrows), checks add to the other columns; `record` in afterAll writes the row.
 */
export function faultClass(name: string) {
  const counts: Counts = { trials: 0, failures: 0, lost: 0, bricked: 0, wrongExitCodes: 0, markerFiles: 0 };
  return {
    counts,
    async trial(run: () => Promise<void> | void): Promise<void> {
      counts.trials += 1;
      try {
        await run();
      } catch (error) {
        counts.failures += 1;
        throw error;
      }
    },
    record(note?: string): void {
      recordFaultRow({ class: name, ...counts, ...(note ? { note } : {}) });
    },
  };
}
