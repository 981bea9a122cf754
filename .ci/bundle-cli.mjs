// Bundles the compiled CLI (dist/src/interfaces/cli/bundle-entry.js: run.js, zod without its JIT) into one CommonJS file,
// dist/src/interfaces/cli/bundle/lmem.cjs, and warms V8's code cache of it beside (lmem.cjs.cache)
// by running a few commands on a throwaway store: the launcher (main.js) runs it (ADR 26).
// Run by .ci/setup.sh after tsc.
//
// - Pure-JS packages on the CLI's path are bundled; every other package stays external, required
//   from node_modules as before, and only when the module that imports it first runs (as with ES
//   modules): a bundler would otherwise hoist every require to the top, so `status` would load the
//   EventStoreDB client.
// - The doors (http, mcp, proxy) are left out: the launcher never runs `serve` or `mcp` bundled.
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// rolldown is vite's bundler (vite 8 depends on it): taken from vite's own dependencies, so the
// lockfile, whose hash every worktree's set-up compares with the shared node_modules, is unchanged.
const fromVite = createRequire(fileURLToPath(import.meta.resolve('vite')));
const { rolldown } = await import(pathToFileURL(fromVite.resolve('rolldown')).href);

const cli = fileURLToPath(new URL('../dist/src/interfaces/cli/', import.meta.url));
const require = createRequire(`${cli}run.js`);
// better-sqlite3's JavaScript too (13 files Node's loader would resolve, read and compile at every start,
// ~5 ms); its addon is still required from node_modules, by the path sqlite-database.ts resolves.
const inline = new Set(['zod', 'commander', 'stemmer', 'rxjs', 'tslib', 'better-sqlite3']);
const packageOf = (id) => (id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0]);
const bare = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !id.startsWith('node:');
const lazyPrefix = '\0lazy-external:';
// Built-in modules a bundler would require at the top of the file although few commands use them
// (about 12 ms of every start together): required when their importer first runs, as packages are.
const lazyBuiltins = new Set(['node:readline', 'node:worker_threads', 'node:fs/promises', 'node:child_process', 'node:net']);
const identifier = /^[A-Za-z_$][\w$]*$/;

/** A package as an ES module whose body requires it: it runs when its importer first runs, not at start. */
const lazyExternals = {
  name: 'lazy-externals',
  resolveId(id, importer) {
    if (importer && /\/interfaces\/cli\/serve-command\.js$/.test(importer) && /^\.\.\/(http|mcp|proxy)\//.test(id)) return { id, external: true };
    // A bundled package's `require('fs')` is Node's own module, as `node:fs`: a lazy wrapper would read
    // each of its exports, and some (fs.promises, util.parseArgs) load more of Node's modules when read.
    if (builtinModules.includes(id)) return lazyBuiltins.has(`node:${id}`) ? `${lazyPrefix}node:${id}` : { id: `node:${id}`, external: true };
    if (!(bare(id) || lazyBuiltins.has(id)) || inline.has(packageOf(id))) return null;
    // The lazy module's own require is the package itself, external.
    return importer?.startsWith(lazyPrefix) ? { id, external: true } : `${lazyPrefix}${id}`;
  },
  // commander requires child_process for executable subcommands, which the CLI has none of.
  transform(code, id) {
    if (!id.endsWith('/commander/lib/command.js')) return null;
    const eager = "const childProcess = require('node:child_process');";
    if (!code.includes(eager)) throw new Error('commander no longer requires child_process as expected: update .ci/bundle-cli.mjs');
    return code.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };");
  },
  load(id) {
    if (!id.startsWith(lazyPrefix)) return null;
    const name = id.slice(lazyPrefix.length);
    const names = Object.keys(require(name)).filter((key) => key !== 'default' && identifier.test(key));
    return [
      `const m = require(${JSON.stringify(name)});`,
      'export default m;',
      ...names.map((key) => `export const ${key} = m[${JSON.stringify(key)}];`),
    ].join('\n');
  },
};

const build = await rolldown({ input: `${cli}bundle-entry.js`, platform: 'node', plugins: [lazyExternals], logLevel: 'warn' });
// Written beside, then swapped in: a launcher never sees half a bundle (it runs run.js meanwhile).
const next = `${cli}bundle.next`;
rmSync(next, { recursive: true, force: true });
// ASCII only (non-ASCII escaped), without comments or whitespace, local names shortened (0.77 MB
// instead of 1.1): the launcher reads a smaller file as one-byte text (no UTF-8 decoding), and V8
// parses less of what the cache lacks. Error kinds are their `name` properties, not class names.
await build.write({
  file: `${next}/lmem.cjs`,
  format: 'cjs',
  codeSplitting: false,
  sourcemap: false,
  charset: 'ascii',
  comments: false,
  minify: { compress: false, mangle: true, codegen: { removeWhitespace: true } },
});
await build.close();
rmSync(`${cli}bundle`, { recursive: true, force: true });
renameSync(next, `${cli}bundle`);

// The code cache holds what a run compiled: a few common commands on a throwaway store.
const { loadBundle } = await import(`${cli}bundle-loader.cjs`);
const file = `${cli}bundle/lmem.cjs`;
const loaded = loadBundle(file, `${file}.cache`);
const store = mkdtempSync(join(tmpdir(), 'lmem-bundle-warm-'));
const env = { ...process.env };
try {
  process.env.LIVINGMEMORY_DATA_DIR = store;
  for (const argv of [['start'], ['add', 'Warm-up: Ann drinks green tea in Paris'], ['search', 'tea in Paris'], ['status'], ['events'], ['list'], ['--help']]) {
    const code = await loaded.main([...argv, '--json']);
    if (code !== 0) throw new Error(`warm-up: lmem ${argv.join(' ')} exited ${code}`);
  }
  loaded.saveCache(true);
} finally {
  process.env = env;
  rmSync(store, { recursive: true, force: true });
}
