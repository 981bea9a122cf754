import type { z } from 'zod';
import { toValidationError, ValidationError } from '../../events/errors.js';
import { parseCsv, unescapeFormula } from './csv.js';
import { defaultLimits, type Limits } from '../../events/bounds.js';
import { createImportRowSchema, createNativeMemorySchema, csvColumns, nativeFormat, nativeVersion, type ImportRow } from './format.js';
import { externalEntry } from './external.js';

export type ImportFormat = 'native-json' | 'external-json' | 'csv';

export interface InvalidRow {
  /** 1-based: the n-th memory of the file (the first CSV row after the header is 1). */
  readonly row: number;
  readonly field: string;
  readonly message: string;
}

export interface ParsedImport {
  readonly format: ImportFormat;
  readonly rows: { readonly row: number; readonly data: ImportRow }[];
  readonly invalid: InvalidRow[];
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** Refuses a file over the size limit (`limits.importBytes`) before anything is parsed. */
export function checkImportSize(bytes: number, limits: Limits = defaultLimits): void {
  if (bytes > limits.importBytes) throw new ValidationError('file', `is ${mib(bytes)}; the limit is ${mib(limits.importBytes)} (limits.importBytes)`);
}

/** The row schemas at one set of limits. */
interface Schemas {
  readonly limits: Limits;
  readonly row: ReturnType<typeof createImportRowSchema>;
  readonly native: ReturnType<typeof createNativeMemorySchema>;
}

const checkCount = (n: number, limits: Limits): void => {
  if (n > limits.importEntries) throw new ValidationError('memories', `the file holds ${n} entries; the limit is ${limits.importEntries} (limits.importEntries)`);
};

function validate(entries: readonly unknown[], schema: z.ZodType<unknown>, format: ImportFormat, schemas: Schemas): ParsedImport {
  const rows: ParsedImport['rows'][number][] = [];
  const invalid: InvalidRow[] = [];
  entries.forEach((entry, i) => {
    const result = schema.safeParse(entry);
    if (result.success) {
      const { memoryId: _id, createdAt: _c, updatedAt: _u, ...data } = result.data as ImportRow & Record<string, unknown>;
      rows.push({ row: i + 1, data: schemas.row.parse(data) });
    } else {
      const error = toValidationError(result.error);
      invalid.push({ row: i + 1, field: error.field, message: error.detail });
    }
  });
  return { format, rows, invalid };
}

function parseJson(text: string, schemas: Schemas): ParsedImport {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ValidationError('file', `is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof doc === 'object' && doc !== null && !Array.isArray(doc) && ('format' in doc || 'version' in doc)) {
    const native = doc as { format?: unknown; version?: unknown; memories?: unknown };
    if (native.format !== nativeFormat) throw new ValidationError('format', `must be "${nativeFormat}", got ${JSON.stringify(native.format)}`);
    if (native.version !== nativeVersion) {
      throw new ValidationError('version', `${JSON.stringify(native.version)} is not supported; this build reads version ${nativeVersion}`);
    }
    if (!Array.isArray(native.memories)) throw new ValidationError('memories', 'must be an array');
    checkCount(native.memories.length, schemas.limits);
    return validate(native.memories, schemas.native, 'native-json', schemas);
  }
  const items = Array.isArray(doc) ? doc : (doc as { memories?: unknown } | null)?.memories;
  if (!Array.isArray(items)) {
    throw new ValidationError('(root)', `expected a ${nativeFormat} export, a JSON array of memories, or an object with a "memories" array`);
  }
  checkCount(items.length, schemas.limits);
  return validate(items.map(externalEntry), schemas.row, 'external-json', schemas);
}

function parseCsvImport(text: string, schemas: Schemas): ParsedImport {
  const [header, ...records] = parseCsv(text, schemas.limits.importEntries + 1);
  if (!header) throw new ValidationError('header', 'the file is empty');
  const known = new Set<string>(csvColumns);
  const unknown = header.find((c) => !known.has(c));
  if (unknown !== undefined) throw new ValidationError('header', `unknown column "${unknown}"; known: ${csvColumns.join(', ')}`);
  if (!header.includes('text')) throw new ValidationError('header', 'a "text" column is required');
  const twice = header.find((c, i) => header.indexOf(c) !== i);
  if (twice !== undefined) throw new ValidationError('header', `column "${twice}" appears twice`);
  const invalid: InvalidRow[] = [];
  const entries = records.map((cells, i) => {
    if (cells.length !== header.length) invalid.push({ row: i + 1, field: '(row)', message: `has ${cells.length} cells; the header has ${header.length}` });
    return Object.fromEntries(header.flatMap((column, c) => {
      const cell = unescapeFormula(cells[c] ?? '');
      return cell === '' && column !== 'text' ? [] : [[column, csvValue(column, cell)]];
    }));
  });
  const parsed = validate(entries, schemas.native, 'csv', schemas);
  const short = new Set(invalid.map((r) => r.row));
  return { ...parsed, rows: parsed.rows.filter((r) => !short.has(r.row)), invalid: [...invalid, ...parsed.invalid.filter((r) => !short.has(r.row))].sort((a, b) => a.row - b.row) };
}

/** A cell as the value its column holds: numbers and JSON lists parsed, the rest as text (zod names what is wrong). */
function csvValue(column: string, cell: string): unknown {
  if (column === 'importance') return cell.trim() === '' || Number.isNaN(Number(cell)) ? cell : Number(cell);
  if (column === 'topics' || column === 'keyFacts' || column === 'participants') {
    try {
      return JSON.parse(cell) as unknown;
    } catch {
      return cell;
    }
  }
  return cell;
}

/**
 * Reads an import file: the size limit first, then the format (given, or guessed from the first
 * character), then every entry validated. Nothing is written here.
 */
export function parseImport(content: string | Buffer, format?: 'json' | 'csv', limits: Limits = defaultLimits): ParsedImport {
  checkImportSize(typeof content === 'string' ? Buffer.byteLength(content) : content.byteLength, limits);
  const schemas = { limits, row: createImportRowSchema(limits), native: createNativeMemorySchema(limits) };
  const text = typeof content === 'string' ? content : content.toString('utf8');
  const kind = format ?? (/^\uFEFF?\s*[[{]/.test(text) ? 'json' : 'csv');
  return kind === 'json' ? parseJson(text.replace(/^\uFEFF/, ''), schemas) : parseCsvImport(text, schemas);
}
