import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = resolve('.');
const natives = ['better-sqlite3', 'nodejieba', 'faiss-node'];

/**
 * A consumer's lockfile: the package's own locked dependencies (not its dev ones), so `npm ci
 * --offline` installs them from the npm cache the project's set-up filled, with no registry.
 */
function consumerLock(tarball: string) {
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Record<string, unknown>;
  const packages: Record<string, unknown> = { '': { name: 'consumer', version: '1.0.0', dependencies: { livingmemory: tarball } } };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev) continue;
    const name = path.split('node_modules/').pop() ?? '';
    // npm leaves out `resolved` for some registry packages; without it an offline install asks for the packument.
    const resolved = entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${String(entry.version)}.tgz`;
    packages[path] = { ...entry, resolved };
  }
  packages['node_modules/livingmemory'] = { version: pkg.version, resolved: tarball, dependencies: pkg.dependencies, engines: pkg.engines, bin: pkg.bin };
  return { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages };
}

const consumer = `
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryEngine, loadConfig, ValidationError, DomainError } from 'livingmemory';
const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: mkdtempSync(join(tmpdir(), 'consumer-')) } }), { maintenance: false });
const { memoryId } = await engine.writeMemory({ text: 'The consumer test stores a memory', userId: 'c' });
const recalled = await engine.recall({ query: 'consumer memory', scope: { mode: 'user', userId: 'c' } });
const turn = await engine.beforeLlmRequest({ sessionId: 's', userId: 'c', message: { content: 'what did the consumer store?' } });
let field = null;
try { await engine.writeMemory({ text: '' }); } catch (e) { field = e instanceof ValidationError ? e.field : 'not a ValidationError'; }
await engine.close();
console.log(JSON.stringify({ memoryId, recalled: recalled.memories.map((m) => m.memoryId), turn: turn.status, field, domainError: typeof DomainError }));
`;

const typed = `
import { createMemoryEngine, loadConfig, type BeforeLlmRequestInput } from 'livingmemory';
const engine = await createMemoryEngine(loadConfig());
const good: BeforeLlmRequestInput = { sessionId: 's', message: { content: 'hi' } };
await engine.beforeLlmRequest(good);
// @ts-expect-error: the session is sessionId, and the message an object
await engine.beforeLlmRequest({ session: 'x', message: 'hi' });
// @ts-expect-error: importance is a number
await engine.writeMemory({ text: 'x', importance: 'high' });
// @ts-expect-error: no such scope mode
await engine.recall({ query: 'q', scope: { mode: 'everyone' } });
`;

describe('the packed package, installed into a fresh project offline', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmem-consumer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports by name, runs, and types its inputs from the zod schemas', { timeout: 300_000 }, () => {
    execFileSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: repo, stdio: 'pipe' });
    const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
    expect(tarball).toMatch(/^livingmemory-.*\.tgz$/);
    const project = join(dir, 'project');
    mkdirSync(project);
    const spec = `file:../${tarball}`;
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', dependencies: { livingmemory: spec } }));
    writeFileSync(join(project, 'package-lock.json'), JSON.stringify(consumerLock(spec)));
    execFileSync('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: project, stdio: 'pipe' });
    // Native addons: the ones set-up built for this Node (their install scripts reach GitHub, as .ci/setup.sh explains).
    for (const name of natives) {
      const from = join(repo, 'node_modules', name, 'build', 'Release');
      mkdirSync(join(project, 'node_modules', name, 'build', 'Release'), { recursive: true });
      for (const file of readdirSync(from).filter((f) => f.endsWith('.node'))) copyFileSync(join(from, file), join(project, 'node_modules', name, 'build', 'Release', file));
    }
    expect(readdirSync(join(project, 'node_modules', 'livingmemory', 'dist', 'src'))).toContain('index.d.ts');

    writeFileSync(join(project, 'main.mjs'), consumer);
    const out = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { cwd: project, encoding: 'utf8' })) as Record<string, unknown>;
    expect(out).toMatchObject({ turn: 'ok', field: 'text', domainError: 'function' });
    expect(out.recalled).toEqual([out.memoryId]);

    writeFileSync(join(project, 'typed.ts'), typed);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [], typeRoots: [join(repo, 'node_modules', '@types')] },
      files: ['typed.ts'],
    }));
    // Passes only when each @ts-expect-error line is a type error: with `unknown` inputs it would fail (TS2578).
    const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = (() => {
      try {
        return execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' });
      } catch (error) {
        return String((error as { stdout?: string }).stdout);
      }
    })();
    expect(result).toBe('');
    writeFileSync(join(project, 'typed.ts'), typed.replace(/\/\/ @ts-expect-error.*\n/g, ''));
    expect(() => execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8' })).toThrow();
  });
});
