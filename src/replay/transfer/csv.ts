import { ValidationError } from '../../events/errors.js';

/*
 * CSV as RFC 4180 says (comma, CRLF, double quotes doubled inside quoted fields), plus formula
 * escaping for spreadsheets: a cell that starts with = + - @ (or tab or CR) is prefixed with a
 * single quote so no spreadsheet runs it. A cell that already starts with a quote gets one more,
 * so unescaping (drop one leading quote) gives back exactly the text that was written.
 */

const formulaStart = /^[=+\-@\t\r']/;

/** Prefixes a quote to a cell a spreadsheet would read as a formula. */
export function escapeFormula(cell: string): string {
  return formulaStart.test(cell) ? `'${cell}` : cell;
}

/** The inverse of `escapeFormula`. */
export function unescapeFormula(cell: string): string {
  return cell.startsWith("'") ? cell.slice(1) : cell;
}

/** One CSV field: formula-escaped, then quoted when it holds a comma, quote or line break. */
export function csvCell(value: string | number | boolean | null): string {
  const text = escapeFormula(value === null ? '' : String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A CSV document: a header row and the rows, CRLF-terminated. */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number | boolean | null)[])[]): string {
  return [header, ...rows].map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}

/**
 * Parses RFC 4180 CSV (CRLF or LF) into records of raw fields (formula escapes kept). Stops with
 * an error once more than `maxRecords` records (the header included) are seen, so an oversize
 * file is refused without reading it all.
 */
export function parseCsv(text: string, maxRecords: number): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = (): void => {
    record.push(field);
    field = '';
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
    if (records.length > maxRecords) throw new ValidationError('rows', `the file holds more than ${maxRecords - 1} rows`);
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"' && field === '') {
      const close = readQuoted(text, i + 1, records.length + 1);
      field = close.value;
      i = close.next;
      const after = text[i];
      if (after !== undefined && after !== ',' && after !== '\n' && after !== '\r') {
        throw new ValidationError(`row ${records.length}`, 'text after a closing quote');
      }
      continue;
    }
    if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i += 1;
      endRecord();
    } else field += c;
    i += 1;
  }
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

function readQuoted(text: string, start: number, recordNumber: number): { value: string; next: number } {
  let value = '';
  let i = start;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) throw new ValidationError(`row ${recordNumber - 1}`, 'a quoted field is never closed');
    value += text.slice(i, quote);
    if (text[quote + 1] === '"') {
      value += '"';
      i = quote + 2;
    } else return { value, next: quote + 1 };
  }
}
