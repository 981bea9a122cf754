import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshCli, logHead } from './support/cli.js';

// Issue 11, case 9: each of these exited 1 (parseArgs "Unknown option"/"ambiguous", EISDIR, EEXIST)
// or was accepted. Every bad input must exit 2 with one line naming the field, and write nothing.
const cli = freshCli('lmem-exit-');
const memoryId = cli.json<{ memoryId: string }>(['add', 'Green tea every morning', '--session', 's1']).memoryId;
const aFile = join(cli.dataDir, 'not-a-dir');
writeFileSync(aFile, 'x');
const aDirectory = join(cli.dataDir, 'a-directory');
mkdirSync(aDirectory);

afterAll(() => rmSync(cli.dataDir, { recursive: true, force: true }));

const badInputs: readonly (readonly [readonly string[], RegExp])[] = [
  [['add', 'x', '--importance', '-1'], /importance/],
  [['add', 'x', '--importance', '0x1'], /importance.*0x1/],
  [['add', 'x', '--importance', '1e0'], /importance/],
  [['add', 'x', '--importance', ' 1'], /importance/],
  [['search', 'tea', '--top-k', '-1'], /top-k/],
  [['recall', 'tea', '--at', '1', '--top-k', '-1'], /top-k/],
  [['events', '--tail', '-1'], /tail/],
  [['status', '--bogus'], /unknown option '--bogus'/],
  [['forget', memoryId, '--importance', '0.5'], /unknown option '--importance'/],
  [['rebuild', 'nope'], /projection.*nope/],
  // A fuzz counterexample from CI: a line break in the quoted value made the message two lines.
  [['rebuild', '\u0010nope\n\u2028x'], /projection.*\\u0010nope\\u000a\\u2028x/],
  [['import', aDirectory], /file.*not a file/],
  [['status', '--data-dir', aFile], /data-dir.*not a directory/],
  [['export', '--session', ''], /session: must not be empty/],
  [['export', '--user', ''], /user: must not be empty/],
  [['search', 'tea', '--session', ''], /session: must not be empty/],
  [['erase', '--user', '', '--reason', 'x'], /user: must not be empty/],
  [['search', 'tea', '--top-k', '99999999999999999999'], /top-k/],
  [['reset', '--session', 'no-such-session'], /session.*no-such-session.*--force/],
];

describe('exit codes: bad input exits 2, names the field, writes nothing', () => {
  it.each(badInputs)('lmem %j', (args, names) => {
    const before = logHead(cli.dataDir);
    const result = cli.run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(names);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(logHead(cli.dataDir)).toBe(before);
  });

  it('gives the error as the one JSON object on stdout with --json', () => {
    const result = cli.run(['add', 'x', '--importance', '-1', '--json']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { kind: 'ValidationError', field: 'importance' } });
    expect(result.stderr).toBe('');
  });

  it('reads a query that starts with "-" as text, and anything after -- as text', () => {
    const dash = cli.run(['search', '- tea', '--json']);
    expect(dash.code).toBe(0);
    expect((JSON.parse(dash.stdout) as { memories: { memoryId: string }[] }).memories.map((m) => m.memoryId)).toContain(memoryId);
    expect(cli.run(['search', '--json', '--', '--tea']).code).toBe(0);
  });

  it('refuses a data directory that does not exist for a read command, and creates it for a write', () => {
    const missing = join(cli.dataDir, 'missing');
    expect(cli.run(['status', '--data-dir', missing]).stderr).toMatch(/data-dir.*does not exist/);
    expect(cli.run(['search', 'tea', '--data-dir', missing]).code).toBe(2);
    expect(cli.run(['add', 'new store', '--data-dir', missing]).code).toBe(0);
    expect(logHead(missing)).toBeGreaterThan(0);
  });

  it('resets an unknown session only with --force, which records it', () => {
    const before = logHead(cli.dataDir);
    expect(cli.run(['reset', '--session', 'typo', '--force']).code).toBe(0);
    expect(logHead(cli.dataDir)).toBeGreaterThan(before);
  });
});
