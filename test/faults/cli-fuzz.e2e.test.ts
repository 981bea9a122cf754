import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/interfaces/cli/commands.js';
import { cliPath, freshCli, logHead } from '../support/cli.js';
import { fuzzTally } from '../support/faults/fuzz.js';
import { faultSeed } from '../support/faults/kill.js';

// Issue 11's fault suite, CLI part: random command lines for every command against a real store.
// Bad input must exit 2 with one line and no stack trace and leave the log head where it was; no
// command line may make the CLI fail (exit 1) or hang. LMEM_FUZZ_RUNS sets the size (CI: 100).
const runs = Number(process.env.LMEM_FUZZ_RUNS ?? 100);
const cli = freshCli('lmem-fuzz-');
const cwd = mkdtempSync(join(tmpdir(), 'lmem-fuzz-cwd-'));
const ids = ['a', 'b'].map((s) => cli.json<{ memoryId: string }>(['add', `fuzz memory ${s}`, '--session', 's1', '--user', 'u1']).memoryId);
writeFileSync(join(cwd, 'memories.json'), JSON.stringify([{ text: 'imported by the fuzz' }]));
afterAll(() => {
  rmSync(cli.dataDir, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

// `serve` listens until a signal, so a good line never ends; its bad input is tested in http-auth.e2e.
const names = Object.keys(commands).filter((name) => name !== 'serve');
const flags = [...new Set(Object.values(commands).flatMap((c) => (c.options ?? []).map((o) => /--[A-Za-z0-9-]+/.exec(o.flags)?.[0] ?? o.flags)))];
const value = fc.oneof(
  fc.constantFrom('', ' ', '-', '--', '-1', '0', '1', '0.5', '0x1', '1e0', ' 1', 'NaN', 'Infinity', '99999999999999999999', '1e309', '-0'),
  fc.constantFrom('s1', 'u1', 'documents', 'fts', 'preview', 'exec', 'json', 'csv', 'global', 'session', 'memories.json', '.', '..', '/'),
  fc.constantFrom(...ids, ...ids.map((id) => id.slice(0, 4)), 'no-such-id'),
  fc.constantFrom('--json', '--help', '--bogus', '--data-dir', '- tea', '-x', '--=', '---'),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 8 }).map((s) => s.replace(/\0/g, '')),
);
const token = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...flags) }, { weight: 4, arbitrary: value });
// Lines built from the command's own flags reach its handler and the engine, not only the parser.
const ownFlags = (name: string) => (commands[name]?.options ?? []).map((o) => /--[A-Za-z0-9-]+/.exec(o.flags)?.[0] ?? o.flags);
const plausible = fc
  .constantFrom(...names)
  .chain((name) => fc.tuple(fc.constant(name), fc.array(ownFlags(name).length > 0 ? fc.oneof(fc.constantFrom(...ownFlags(name)), value) : value, { maxLength: 6 })));
const anyLine = fc.tuple(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: value }), fc.array(token, { maxLength: 6 }));

describe('CLI argument fuzz (fault suite)', () => {
  it(`exits 0, 2 or 3 on ${runs} random command lines; 2 writes nothing; never a stack trace`, () => {
    const tally = fuzzTally('CLI argument fuzz', 'exit codes');
    try {
      fc.assert(
        fc.property(fc.oneof(plausible, anyLine), ([name, rest]) => {
          const args = [name, ...rest];
          const before = logHead(cli.dataDir);
          const result = spawnSync(process.execPath, [cliPath, ...args], {
            cwd,
            encoding: 'utf8',
            timeout: 120_000,
            env: { PATH: process.env.PATH, LIVINGMEMORY_DATA_DIR: cli.dataDir },
          });
          const code = result.status ?? -1;
          tally.count(code);
          const problem =
            ![0, 2, 3].includes(code) ? `exit ${code}${result.signal ? ` (${result.signal})` : ''}: ${result.stderr.trim().split('\n')[0] ?? ''}`
            : /\n\s+at .+:\d+:\d+/.test(result.stderr) ? 'stack trace on stderr'
            : code === 2 && logHead(cli.dataDir) !== before ? `exit 2 but the log head moved from ${before} to ${logHead(cli.dataDir)}`
            : code === 2 && !args.includes('--json') && result.stderr.trim().split('\n').length !== 1 ? `exit 2 with ${result.stderr.trim().split('\n').length} lines`
            : null;
          if (problem) tally.find(JSON.stringify(args), problem, ![0, 2, 3].includes(code));
          return problem === null;
        }),
        // CI counterexamples, kept: a backup id that is not there exited 1 instead of 2; a line break
        // in a quoted projection name made the error two lines.
        {
          numRuns: runs,
          endOnFailure: true,
          seed: faultSeed,
          examples: [[['restore-backup', ['\u{f1509}\u{c8926}']]], [['rebuild', ['\u0010\u{38756}\u{15ffe}\n']]]],
        },
      );
    } finally {
      tally.record();
    }
    expect(tally.findings).toEqual([]);
    // Each run is a process start (the engine opens for good lines): up to seconds each on a loaded machine.
  }, runs * 10_000);
});
