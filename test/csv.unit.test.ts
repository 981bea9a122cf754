import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/events/errors.js';
import { csvCell, escapeFormula, parseCsv, toCsv, unescapeFormula } from '../src/replay/transfer/csv.js';

describe('CSV writer and reader', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+49 30 1234', "'+49 30 1234"],
    ['-5', "'-5"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ["'already", "''already"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
  ])('escapes %j as %j so no spreadsheet runs it', (cell, escaped) => {
    expect(escapeFormula(cell)).toBe(escaped);
    expect(unescapeFormula(escaped)).toBe(cell);
  });

  it('quotes fields with commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\r\nlines')).toBe('"two\r\nlines"');
    expect(csvCell(null)).toBe('');
    expect(toCsv(['a', 'b'], [[1, '=x']])).toBe("a,b\r\n1,'=x\r\n");
  });

  it('reads LF or CRLF, a BOM, quoted line breaks, and skips blank lines', () => {
    expect(parseCsv('\uFEFFa,b\n"x\ny","q""q"\r\n\r\n,z\n', 10)).toEqual([['a', 'b'], ['x\ny', 'q"q'], ['', 'z']]);
  });

  it('refuses an unclosed quote, text after a closing quote, and too many rows', () => {
    expect(() => parseCsv('a\n"open', 10)).toThrow(/never closed/);
    expect(() => parseCsv('a\n"x"y', 10)).toThrow(ValidationError);
    expect(() => parseCsv('a\n1\n2\n3', 3)).toThrow(/more than 2 rows/);
  });

  it('gives back every cell written, escaped and unescaped, for any text', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', ' ', ',', '"', '\n', '\r', '=', '+', '-', '@', "'", '\t', '中') });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 2, maxLength: 2 }), { maxLength: 5 }), (rows) => {
        const parsed = parseCsv(toCsv(['h1', 'h2'], rows), 100).map((r) => r.map(unescapeFormula));
        expect(parsed).toEqual([['h1', 'h2'], ...rows]);
      }),
      { numRuns: 300 },
    );
  });
});
