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
  /** The least acceptable ratio, when the figure has a target. */
  readonly target?: number;
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

/** A row with its ratio ours / baseline computed; figures should be rates (higher is better). */
export function row(name: string, ours: number, baseline: number, unit: string, target?: number): BenchRow {
  return { name, ours, baseline, unit, ratio: baseline === 0 ? Number.NaN : ours / baseline, ...(target === undefined ? {} : { target }) };
}

export function passes(r: BenchRow): boolean | null {
  return r.target === undefined ? null : r.ratio >= r.target;
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
    ours: round(r.ours),
    baseline: round(r.baseline),
    unit: r.unit,
    ratio: round(r.ratio, 4),
    target: r.target ?? null,
    pass: passes(r),
  }));
  const withTargets = rows.filter((r) => r.pass !== null);
  return { title: report.title, meta: report.meta, rows, allTargetsPass: withTargets.every((r) => r.pass === true) };
}

export function formatTable(report: BenchReport): string {
  const header = ['benchmark', 'ours', 'raw', 'unit', 'ours/raw', 'target', 'ok'];
  const body = report.rows.map((r) => {
    const pass = passes(r);
    return [
      r.name,
      formatNumber(r.ours),
      formatNumber(r.baseline),
      r.unit,
      `${r.ratio.toFixed(3)}x`,
      r.target === undefined ? '-' : `>= ${r.target}x`,
      pass === null ? '-' : pass ? 'yes' : 'NO',
    ];
  });
  const table = [header, ...body];
  const widths = header.map((_, c) => Math.max(...table.map((cells) => (cells[c] ?? '').length)));
  // Text columns align left, figures right.
  const numeric = new Set([1, 2, 4]);
  const line = (cells: readonly string[]) =>
    cells.map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  const metaWidth = Math.max(0, ...Object.keys(report.meta).map((k) => k.length));
  const meta = Object.entries(report.meta).map(([k, v]) => `${`${k}:`.padEnd(metaWidth + 1)} ${String(v)}`);
  return [report.title, '', ...meta, '', line(header), rule, ...body.map(line), ''].join('\n');
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
