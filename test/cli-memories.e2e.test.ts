import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshCli, logHead } from './support/cli.js';
import { removeDataDir } from './support/engine.js';

const cli = freshCli('lmem-memories-', { LIVINGMEMORY_MEMORY_SCOPE_MODE: 'session' });
afterAll(() => removeDataDir(cli.dataDir));

interface Doc {
  memoryId: string;
  status: string;
  importance: number;
  topics: string[];
  text: string;
}
const list = (...args: string[]) => cli.json<{ memories: Doc[] }>(['list', ...args]).memories;
const longest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

describe('lmem list, show, update, archive, restore, with ids by unique prefix', () => {
  const tea = cli.json<{ memoryId: string }>(['add', 'Ann drinks green tea every morning before work', '--session', 's1', '--user', 'ann']).memoryId;

  it('lists, shows and changes one memory through a prefix of its id', () => {
    expect(list().map((m) => m.memoryId)).toEqual([tea]);
    const prefix = tea.slice(0, 8);
    expect(cli.run(['show', prefix]).stdout).toMatch(/^memory [\s\S]*Ann drinks green tea/);
    expect(cli.json(['update', prefix, '--importance', '0.9', '--topic', 'drinks', '--topic', 'mornings'])).toMatchObject({ memoryId: tea });
    expect(cli.json<Doc>(['show', tea])).toMatchObject({ importance: 0.9, topics: ['drinks', 'mornings'] });
    expect(cli.run(['update', prefix]).code).toBe(2);
    expect(cli.run(['archive', prefix, '--reason', 'old']).stdout).toMatch(/^archived /);
    expect(list()).toEqual([]);
    expect(list('--status', 'archived').map((m) => m.memoryId)).toEqual([tea]);
    expect(cli.run(['search', 'green tea', '--session', 's1', '--json']).stdout).not.toContain(tea);
    expect(cli.run(['archive', prefix]).stdout).toMatch(/already archived/);
    expect(cli.run(['restore', prefix]).stdout).toMatch(/^restored /);
    expect(list('--status', 'active').map((m) => m.memoryId)).toEqual([tea]);
    expect(cli.run(['history', prefix]).stdout).toMatch(/MemoryArchived[\s\S]*MemoryRestored/);
  });

  it('refuses an ambiguous prefix with exit 2, listing the candidates, and writes nothing', () => {
    const file = join(cli.dataDir, 'many.json');
    writeFileSync(file, JSON.stringify(Array.from({ length: 20 }, (_, i) => ({ text: `imported fact number ${i}`, sessionId: 's2' }))));
    expect(cli.run(['import', file]).code).toBe(0);
    const ids = list('--limit', '0').map((m) => m.memoryId);
    // 21 ids over 16 hex digits: at least two share their first character.
    const shared = ids.map((id) => id[0] ?? '').find((c, i, all) => all.indexOf(c) !== i) as string;
    const before = logHead(cli.dataDir);
    const result = cli.run(['forget', shared, '--reason', 'which one?']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`memory-id: "${shared}" is ambiguous: it starts ${shared}`));
    expect(logHead(cli.dataDir)).toBe(before);
    expect(cli.run(['forget', 'zz-no-such-id']).stderr).toMatch(/does not exist/);
  });

  it('keeps history and events within 100 columns, with short ids', () => {
    const long = 'A very long memory text that would never fit on one line of a terminal '.repeat(4);
    const id = cli.json<{ memoryId: string }>(['add', long, '--session', 's1', '--topic', 'width']).memoryId;
    for (const args of [['history', id], ['events', '--tail', '30']]) {
      const text = cli.run(args).stdout;
      expect(longest(text)).toBeLessThanOrEqual(100);
      expect(text).toContain(id.slice(0, 8));
      expect(text.split('\n').slice(1).join('\n')).not.toContain(id);
    }
    expect(longest(cli.run(['list', '--limit', '0']).stdout)).toBeLessThanOrEqual(100);
  });

  it('searches in the configured scope, not globally', () => {
    // conversation.scopeMode is `session` here: a search without --session is refused, not global.
    const refused = cli.run(['search', 'green tea']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/session: is required by the session scope/);
    const inS2 = cli.json<{ memories: { memoryId: string }[] }>(['search', 'green tea', '--session', 's2']).memories;
    expect(inS2.map((m) => m.memoryId)).not.toContain(tea);
    const inS1 = cli.json<{ memories: { memoryId: string }[] }>(['search', 'green tea', '--session', 's1']).memories;
    expect(inS1.map((m) => m.memoryId)).toContain(tea);
    const global = cli.json<{ memories: { memoryId: string }[] }>(['search', 'green tea', '--scope', 'global', '--session', 's2']).memories;
    expect(global.map((m) => m.memoryId)).toContain(tea);
  });
});
