import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../src/commands/errors.js';
import type { MemoryEngine } from '../src/engine/engine.js';
import { ValidationError } from '../src/events/errors.js';
import { parseImport } from '../src/replay/transfer/parse.js';
import { openTestEngine, tempDir } from './support/engine.js';

// An import file is whatever a user (or an attacker) hands over: broken CSV quoting, JSON of the
// wrong shape, byte-order marks, huge numbers, odd columns. Reading one either gives rows (valid
// and invalid ones, each named) or refuses the file with a ValidationError; importing one either
// writes it all or refuses and writes nothing.
const cell = fc.oneof(
  fc.constantFrom('', ' ', '"', '""', '"a,b"', '"x""y"', '\n', '\r\n', ',', '1e309', '-0', '0.5', '2', 'NaN', '[]', '["a"]', '[1]', '{}', 'null', 'true', '\uFEFF', '\u2028'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);
const columns = fc.array(fc.constantFrom('text', 'content', 'importance', 'topics', 'keyFacts', 'participants', 'userId', 'sessionId', 'personaId', 'memoryId', 'createdAt', 'extra', ''), { minLength: 1, maxLength: 5 });
const csv = fc.tuple(columns, fc.array(fc.array(cell, { maxLength: 6 }), { maxLength: 4 }), fc.constantFrom('\n', '\r\n'), fc.boolean()).map(
  ([head, rows, eol, bom]) => `${bom ? '\uFEFF' : ''}${[head.join(','), ...rows.map((r) => r.join(','))].join(eol)}`,
);
const memoryLike = fc.dictionary(fc.constantFrom('text', 'content', 'importance', 'topics', 'userId', 'sessionId', 'memoryId', 'createdAt', 'format', 'version', 'memories'), fc.oneof(cell, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 4 });
const json = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.array(memoryLike, { maxLength: 4 }).map((v) => JSON.stringify(v)),
  fc.tuple(fc.constantFrom('livingmemory.memories', 'other'), fc.oneof(fc.integer(), cell), fc.array(memoryLike, { maxLength: 3 })).map(([format, version, memories]) => JSON.stringify({ format, version, memories })),
  // Cut short or with a stray byte: not JSON at all.
  fc.tuple(fc.array(memoryLike, { maxLength: 3 }), fc.nat(), cell).map(([v, cut, junk]) => { const s = JSON.stringify(v); return s.slice(0, cut % (s.length + 1)) + junk; }),
);
// Files that are nearly right (a valid memory per row, now and then one field replaced): they reach the writes.
const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).filter((t) => t.trim().length > 0);
const good = fc.record({ text, importance: fc.double({ min: 0, max: 1, noNaN: true }), topics: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 2 }) });
const nearly = fc.tuple(good, fc.option(fc.tuple(fc.constantFrom('text', 'importance', 'topics', 'userId', 'extra'), fc.oneof(cell, fc.jsonValue({ maxDepth: 1 }))), { freq: 3 }))
  .map(([m, change]) => (change ? { ...m, [change[0]]: change[1] } : m));
const quoted = (v: unknown): string => `"${(typeof v === 'string' ? v : JSON.stringify(v) ?? '').replace(/"/g, '""')}"`;
const nearlyJson = fc.array(nearly, { minLength: 1, maxLength: 4 }).map((rows) => JSON.stringify(rows));
const nearlyCsv = fc.array(nearly, { minLength: 1, maxLength: 4 }).map((rows) =>
  ['text,importance,topics', ...rows.map((r) => [quoted(r.text), quoted(r.importance), quoted(r.topics)].join(','))].join('\n'));
const content = fc.oneof(csv, json, cell, nearlyJson, nearlyCsv);
const format = fc.constantFrom(undefined, 'json' as const, 'csv' as const);

const refusedWell = (error: unknown): boolean => error instanceof ValidationError || error instanceof DomainError;

describe('import files, fuzzed', () => {
  it('are read into named rows or refused with a ValidationError, never another error', () => {
    fc.assert(
      fc.property(content, format, (text, kind) => {
        try {
          const parsed = parseImport(text, kind);
          return parsed.invalid.every((r) => r.row >= 1 && typeof r.field === 'string' && r.message.length > 0);
        } catch (error) {
          return error instanceof ValidationError && error.field.length > 0;
        }
      }),
      { numRuns: 2_000 },
    );
  });

  describe('through the engine', () => {
    let engine: MemoryEngine;
    let temp: ReturnType<typeof tempDir>;
    beforeAll(async () => {
      temp = tempDir();
      engine = await openTestEngine(temp.dir);
      await engine.writeMemory({ text: 'already here before any import' });
    });
    afterAll(async () => {
      await engine.close();
      temp.remove();
    });

    it('writes a whole file or refuses it and writes nothing', async () => {
      await fc.assert(
        fc.asyncProperty(content, format, async (text, kind) => {
          const before = await engine.log.headPosition();
          const memories = engine.documents.count();
          try {
            const result = await engine.importMemories({ content: text, source: 'fuzz', ...(kind ? { format: kind } : {}) });
            return engine.documents.count() === memories + result.memoryIds.length;
          } catch (error) {
            if (!refusedWell(error)) throw error;
            return (await engine.log.headPosition()) === before && engine.documents.count() === memories;
          }
        }),
        { numRuns: 150 },
      );
      expect(engine.documents.count()).toBeGreaterThanOrEqual(1);
    });
  });
});
