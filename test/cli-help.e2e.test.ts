import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { commands } from '../src/interfaces/cli/commands.js';
import { freshCli, logHead } from './support/cli.js';

const cli = freshCli('lmem-help-');
afterAll(() => rmSync(cli.dataDir, { recursive: true, force: true }));

const longFlag = (flags: string): string => /--[A-Za-z0-9-]+/.exec(flags)?.[0] ?? flags;
const allFlags = [...new Set(Object.values(commands).flatMap((c) => (c.options ?? []).map((o) => longFlag(o.flags))))];
const names = Object.keys(commands);

describe('lmem --help and declared flags, per command', () => {
  it.each(names)('%s --help prints its own usage and exits 0', (name) => {
    const result = cli.run([name, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: lmem ${name}\\b`));
    for (const option of commands[name]?.options ?? []) expect(result.stdout).toContain(longFlag(option.flags));
  });

  it.each(names)('%s refuses a flag it does not take, with exit 2 naming it', (name) => {
    const own = new Set((commands[name]?.options ?? []).map((o) => longFlag(o.flags)));
    const foreign = allFlags.find((f) => !own.has(f)) ?? '--no-such-flag';
    const before = logHead(cli.dataDir);
    const result = cli.run([name, foreign, 'x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`unknown option '${foreign}'`);
    expect(logHead(cli.dataDir)).toBe(before);
  });

  it('lists every command in lmem --help, and lmem help <command> shows that command', () => {
    const top = cli.run(['--help']);
    expect(top.code).toBe(0);
    for (const name of names) expect(top.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(cli.run(['help', 'search']).stdout).toMatch(/^Usage: lmem search \[options\] <query>/);
  });
});
