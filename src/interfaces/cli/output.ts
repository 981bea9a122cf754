/** JSON with bigints as numbers (positions stay far below 2^53 in practice) or strings beyond that. */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) => (typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()) : v),
    2,
  );
}

/** Control characters and line separators as `\u` escapes: a message quoting user input stays on one line. */
export const printable = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The width the listing commands (`list`, `history`, `events`) keep every line within. */
export const screenWidth = 100;

/** One line of at most `max` characters: line breaks shown as spaces, the cut marked with an ellipsis. */
export function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ');
  const chars = [...line];
  return chars.length <= max ? line : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Ids in listings: 8 characters (a unique prefix of them is accepted wherever an id is; ADR 26). */
export const shortId = (id: string): string => (id.length > 8 ? id.slice(0, 8) : id);

const uuid = /\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/** Every UUID in a line shortened to its first 8 characters, for the listings. */
export const shortIds = (text: string): string => text.replace(uuid, '$1');

/** An ISO time to the second, for the listings (JSON keeps the full value). */
export const shortTime = (iso: string): string => iso.slice(0, 19);

type Cell = string | number | bigint | null;

/** `text` in lines of at most `max` characters, broken at spaces where a word fits. */
export function wrap(text: string, max: number): string[] {
  const lines: string[] = [];
  let rest = [...text.replace(/\s+/g, ' ')];
  while (rest.length > max) {
    const space = rest.lastIndexOf(' ', max);
    const cut = space > 0 ? space : max;
    lines.push(rest.slice(0, cut).join(''));
    rest = rest.slice(space > 0 ? cut + 1 : cut);
  }
  lines.push(rest.join(''));
  return lines;
}

/**
 * Aligned columns; with `width`, the last column is clipped so that no line is longer, or with
 * `overflow: 'below'` printed whole under its row, indented and wrapped (where a reader needs all
 * of it: history's reasons).
 */
export function table(rows: readonly (readonly Cell[])[], width?: number, overflow: 'clip' | 'below' = 'clip'): string {
  const cells = rows.map((r) => r.map((c) => (c === null ? '-' : String(c))));
  const count = cells[0]?.length ?? 0;
  if (overflow === 'below' && width !== undefined && count > 1) {
    const [head = [], ...body] = cells;
    const indent = '    ';
    const above = table([head.slice(0, -1), ...body.map((r) => r.slice(0, -1))]).split('\n');
    return [above[0], ...body.flatMap((r, i) => [above[i + 1], ...wrap(r[count - 1] ?? '', width - indent.length).map((l) => indent + l)])].join('\n');
  }
  const widths = Array.from({ length: count }, (_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  if (width !== undefined && count > 0) {
    const fixed = widths.slice(0, -1).reduce((a, b) => a + b + 2, 0);
    const last = Math.max(8, width - fixed);
    for (const r of cells) r[count - 1] = clip(r[count - 1] ?? '', last);
    widths[count - 1] = Math.min(widths[count - 1] ?? 0, last);
  }
  const pad = (c: string, w: number) => c + ' '.repeat(Math.max(0, w - [...c].length));
  return cells.map((r) => r.map((c, i) => pad(c, widths[i] ?? 0)).join('  ').trimEnd()).join('\n');
}

export interface Output {
  readonly json: boolean;
  print(value: unknown, text: () => string): void;
}

export function createOutput(json: boolean, write: (s: string) => void = (s) => process.stdout.write(s)): Output {
  return { json, print: (value, text) => write(`${json ? toJson(value) : text()}\n`) };
}
