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

/** One CSV record, CRLF-terminated. */
export function csvRow(row: readonly (string | number | boolean | null)[]): string {
  return `${row.map(csvCell).join(',')}\r\n`;
}

/** A CSV document: a header row and the rows, CRLF-terminated. */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number | boolean | null)[])[]): string {
  return [header, ...rows].map(csvRow).join('');
}

/**
 * Parses RFC 4180 CSV (CRLF or LF) into records of raw fields (formula escapes kept); blank lines
 * are skipped. Stops with an error once more than `maxRecords` records (the header included) are
 * seen, so an oversize file is refused without reading it all. Fields are sliced, never built
 * character by character, so a 50 MiB file parses in a moment.
 */
export function parseCsv(text: string, maxRecords: number): string[][] {
  const records: string[][] = [];
  const delimiter = /[,\r\n]/g;
  const n = text.length;
  let record: string[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRecord = (): void => {
    if (!(record.length === 1 && record[0] === '')) records.push(record);
    record = [];
    if (records.length > maxRecords) throw new ValidationError('rows', `the file holds more than ${maxRecords - 1} rows`);
  };
  while (i < n) {
    if (text[i] === '"') {
      const quoted = readQuoted(text, i + 1, records.length);
      record.push(quoted.value);
      i = quoted.next;
      if (i < n && !',\r\n'.includes(text[i] as string)) throw new ValidationError(`row ${records.length}`, 'text after a closing quote');
    } else {
      delimiter.lastIndex = i;
      const end = delimiter.exec(text)?.index ?? n;
      record.push(text.slice(i, end));
      i = end;
    }
    if (text[i] === ',') {
      i += 1;
      // A comma at the very end still closes an (empty) last field.
      if (i === n) record.push('');
      continue;
    }
    if (i < n) i += text[i] === '\r' && text[i + 1] === '\n' ? 2 : 1;
    endRecord();
  }
  if (record.length > 0) endRecord();
  return records;
}

function readQuoted(text: string, start: number, row: number): { value: string; next: number } {
  const parts: string[] = [];
  let i = start;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) throw new ValidationError(`row ${row}`, 'a quoted field is never closed');
    parts.push(text.slice(i, quote));
    if (text[quote + 1] !== '"') return { value: parts.join('"'), next: quote + 1 };
    i = quote + 2;
  }
}
