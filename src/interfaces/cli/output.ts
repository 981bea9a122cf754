/** JSON with bigints as numbers (positions stay far below 2^53 in practice) or strings beyond that. */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => (typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()) : v),
    2,
  );
}

export function table(rows: readonly (readonly (string | number | bigint | null)[])[]): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '-' : String(c))));
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => r[i]?.length ?? 0))) ?? [];
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

export interface Output {
  readonly json: boolean;
  print(value: unknown, text: () => string): void;
}

export function createOutput(json: boolean, write: (s: string) => void = (s) => process.stdout.write(s)): Output {
  return { json, print: (value, text) => write(`${json ? toJson(value) : text()}\n`) };
}
