import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshCli } from './support/cli.js';
import { removeDataDir } from './support/engine.js';

// Progress bars are drawn on a terminal only; LMEM_PROGRESS=always stands in for the terminal here.
const cli = freshCli('lmem-progress-');
afterAll(() => removeDataDir(cli.dataDir));
const always = { LMEM_PROGRESS: 'always' };
const lastFrame = (stderr: string) => stderr.split('\r').at(-1)?.replace('\x1b[K', '').trim() ?? '';

describe('progress on stderr', () => {
  it('draws import and rebuild progress on stderr, and keeps stdout what the command prints', () => {
    const file = join(cli.dataDir, 'rows.json');
    writeFileSync(file, JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ text: `progress row ${i}` }))));
    const imported = cli.run(['import', file], always);
    expect(imported.code).toBe(0);
    expect(lastFrame(imported.stderr)).toMatch(/^importing rows\.json \[#+\] 100% 40\/40/);
    expect(imported.stdout).toMatch(/^import \S+: 40 memories written/);
    const rebuilt = cli.run(['rebuild', 'documents'], always);
    expect(rebuilt.stderr).toMatch(/rebuilding documents/);
    expect(rebuilt.stdout).toMatch(/^rebuilt documents/);
  });

  it('draws nothing with --json: stdout is one JSON object, stderr empty', () => {
    for (const args of [['rebuild', 'fts', '--json'], ['rebuild-index', '--json']]) {
      const result = cli.run(args, always);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(() => JSON.parse(result.stdout) as unknown).not.toThrow();
    }
  });

  it('draws nothing when stderr is not a terminal', () => {
    expect(cli.run(['rebuild', 'documents']).stderr).toBe('');
  });
});
