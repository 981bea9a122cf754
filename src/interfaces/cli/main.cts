#!/usr/bin/env node
// The `lmem` launcher (ADR 26). Node 20 resolves, reads and compiles each ES module on its own and
// keeps no compile cache: the CLI's ~350 modules cost more than the rest of a `status`. So the
// build (.ci/bundle-cli.mjs, run by `npm run setup`) bundles run.ts into one CommonJS file, with
// V8's code cache beside it, and the launcher runs that. It runs the compiled modules instead (the
// same code) for the doors, whose worker threads and static files are found beside their own
// modules, and when the bundle is missing or older than the last TypeScript build (a `tsc` alone).
// The launcher itself is CommonJS: an ES module entry starts Node's ES module loader first, about
// 12 ms of every command.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { loadBundle } from './bundle-loader.cjs';

const doors = new Set(['serve', 'mcp']);
const bundle = join(__dirname, 'bundle', 'lmem.cjs');

const mtime = (path: string): number | null => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
};

function bundled(argv: readonly string[]): boolean {
  if (argv.some((arg) => doors.has(arg))) return false;
  const built = mtime(bundle);
  // Only a source checkout has the build info; a packed package has the bundle it was packed with.
  const compiled = mtime(join(__dirname, '..', '..', '..', '.tsbuildinfo'));
  return built !== null && (compiled === null || compiled <= built);
}

/** Resolves once what was written to `stream` has been handed to the system (at once for a file or, on Linux, a pipe). */
const flushed = (stream: NodeJS.WriteStream): Promise<void> => new Promise((resolve) => stream.write('', () => resolve()));

async function launch(argv: readonly string[]): Promise<void> {
  if (!bundled(argv)) {
    const { main } = await import('./run.js');
    process.exitCode = await main(argv);
    return;
  }
  const loaded = loadBundle(bundle, `${bundle}.cache`);
  const code = await loaded.main(argv);
  loaded.saveCache();
  // The command has closed its engine (log, read models, vector snapshots) and its output is
  // written: what a natural exit would still do is V8's idle-time garbage collection and the
  // teardown of a heap about to be freed (15 to 30 ms of every short command, ADR 26).
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
}

void launch(process.argv.slice(2));
