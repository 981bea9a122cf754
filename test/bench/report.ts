import { isEntryPoint } from './support.js';
/**
 * Printing of benchmark figures, shared by every benchmark: an aligned table for people, or with
 * `--json` exactly one JSON object on stdout and nothing else (progress goes to stderr).
 */

/** One measured figure beside its baseline; `ratio` is ours / baseline. */
export interface BenchRow {
  readonly name: string;
  readonly ours: number;
  readonly baseline: number;
  readonly unit: string;
  readonly ratio: number;
  /** The least acceptable ratio (the greatest, when lower is better), when the figure has a target. */
  readonly target?: number;
  /** Rates are better higher (the default), latencies lower: then a ratio below 1 means faster than raw. */
  readonly better?: 'higher' | 'lower';
  /** Printed under the table: what the ratio includes, what to expect of it. */
  readonly note?: string;
}

export interface RowOptions {
  readonly better?: 'higher' | 'lower';
  readonly note?: string;
}

export interface BenchReport {
  readonly title: string;
  /** Facts about the run: Node version, event counts, file system, ... */
  readonly meta: Readonly<Record<string, string | number | boolean>>;
  readonly rows: readonly BenchRow[];
}

export interface ReportOptions {
  readonly json?: boolean;
  readonly out?: (text: string) => void;
}

/** Whether this process was asked for JSON output. */
export function wantsJson(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--json');
}

/** A row with its ratio ours / baseline computed; figures are rates (higher is better) unless `options.better` says otherwise. */
export function row(name: string, ours: number, baseline: number, unit: string, target?: number, options: RowOptions = {}): BenchRow {
  return {
    name,
    ours,
    baseline,
    unit,
    ratio: baseline === 0 ? Number.NaN : ours / baseline,
    ...(target === undefined ? {} : { target }),
    ...(options.better === undefined ? {} : { better: options.better }),
    ...(options.note === undefined ? {} : { note: options.note }),
  };
}

export function passes(r: BenchRow): boolean | null {
  if (r.target === undefined) return null;
  return r.better === 'lower' ? r.ratio <= r.target : r.ratio >= r.target;
}

/** Prints the report: a table by default, one JSON object with `--json`. */
export function printReport(report: BenchReport, options: ReportOptions = {}): void {
  const out = options.out ?? ((text: string) => process.stdout.write(text));
  if (options.json ?? wantsJson()) {
    out(`${JSON.stringify(toJson(report))}\n`);
    return;
  }
  out(formatTable(report));
}

function toJson(report: BenchReport) {
  const rows = report.rows.map((r) => ({
    name: r.name,
    ours: round(r.ours, Math.abs(r.ours) < 10 ? 4 : 1),
    baseline: round(r.baseline, Math.abs(r.baseline) < 10 ? 4 : 1),
    unit: r.unit,
    ratio: round(r.ratio, 4),
    better: r.better ?? 'higher',
    target: r.target ?? null,
    pass: passes(r),
    ...(r.note === undefined ? {} : { note: r.note }),
  }));
  const withTargets = rows.filter((r) => r.pass !== null);
  return { title: report.title, meta: report.meta, rows, allTargetsPass: withTargets.every((r) => r.pass === true) };
}

const header = ['benchmark', 'ours', 'raw', 'unit', 'ours/raw', 'better', 'target', 'ok'];

function cellsOf(r: BenchRow, mark: string): string[] {
  const pass = passes(r);
  return [
    `${r.name}${mark}`,
    formatNumber(r.ours),
    formatNumber(r.baseline),
    r.unit,
    `${r.ratio.toFixed(3)}x`,
    r.better ?? 'higher',
    r.target === undefined ? '-' : `${r.better === 'lower' ? '<=' : '>='} ${r.target}x`,
    pass === null ? '-' : pass ? 'yes' : 'NO',
  ];
}

function formatMeta(meta: BenchReport['meta'], indent = ''): string[] {
  const metaWidth = Math.max(0, ...Object.keys(meta).map((k) => k.length));
  return Object.entries(meta).map(([k, v]) => `${indent}${`${k}:`.padEnd(metaWidth + 1)} ${String(v)}`);
}

/** Lines of one table over `groups` of rows, each group under its own heading; widths shared. */
function formatRows(groups: readonly { heading?: string; rows: readonly BenchRow[] }[]): string[] {
  const notes: string[] = [];
  const bodies = groups.map((g) =>
    g.rows.map((r) => {
      if (r.note === undefined) return cellsOf(r, '');
      notes.push(r.note);
      return cellsOf(r, ` [${notes.length}]`);
    }),
  );
  const table = [header, ...bodies.flat()];
  const widths = header.map((_, c) => Math.max(...table.map((cells) => (cells[c] ?? '').length)));
  // Text columns align left, figures right.
  const numeric = new Set([1, 2, 4]);
  const line = (cells: readonly string[]) =>
    cells.map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const out = [line(header), rule];
  groups.forEach((g, i) => {
    if (g.heading !== undefined) out.push(`${i > 0 ? '\n' : ''}== ${g.heading}`);
    out.push(...(bodies[i] ?? []).map(line));
  });
  if (notes.length > 0) out.push('', ...notes.map((n, i) => `[${i + 1}] ${n}`));
  return out;
}

export function formatTable(report: BenchReport): string {
  return [report.title, '', ...formatMeta(report.meta), '', ...formatRows([{ rows: report.rows }]), ''].join('\n');
}

/** Several reports printed as one: one table with a section per report, or one JSON object. */
export interface CombinedReport {
  readonly title: string;
  readonly meta: BenchReport['meta'];
  /** Keyed by a short name (`core`, `projections`), in printing order. */
  readonly sections: Readonly<Record<string, BenchReport>>;
}

export function printCombinedReport(combined: CombinedReport, options: ReportOptions = {}): void {
  const out = options.out ?? ((text: string) => process.stdout.write(text));
  const entries = Object.entries(combined.sections);
  if (options.json ?? wantsJson()) {
    const sections = Object.fromEntries(entries.map(([key, report]) => [key, toJson(report)]));
    const allTargetsPass = Object.values(sections).every((s) => s.allTargetsPass);
    out(`${JSON.stringify({ title: combined.title, meta: combined.meta, sections, allTargetsPass })}\n`);
    return;
  }
  const metas = entries.flatMap(([key, report]) => ['', `${key}: ${report.title}`, ...formatMeta(report.meta, '  ')]);
  const groups = entries.map(([key, report]) => ({ heading: `${key}: ${report.title}`, rows: report.rows }));
  out([combined.title, '', ...formatMeta(combined.meta), ...metas, '', ...formatRows(groups), ''].join('\n'));
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 1 ? 2 : 4;
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function round(value: number, digits = 1): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Prints the report of `run` when node was started with the module at `moduleUrl` (not when main.ts imports it). */
export function reportWhenEntryPoint(moduleUrl: string, run: () => Promise<BenchReport>): void {
  if (!isEntryPoint(moduleUrl)) return;
  run().then(
    (report) => printReport(report),
    (error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
