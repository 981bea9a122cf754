/** An aligned text table: text columns left, figures right (the style of ../report.ts). */
export function alignedTable(header: readonly string[], body: readonly (readonly string[])[], numeric: ReadonlySet<number>): string {
  const table = [header, ...body];
  const widths = header.map((_, c) => Math.max(...table.map((cells) => (cells[c] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, c) => (numeric.has(c) ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...body.map(line)].join('\n');
}

export const fixed = (value: number | null | undefined, digits = 3): string =>
  value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);

export const percent = (value: number | null | undefined, digits = 1): string =>
  value === null || value === undefined || !Number.isFinite(value) ? '-' : `${(value * 100).toFixed(digits)}%`;
