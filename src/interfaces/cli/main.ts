#!/usr/bin/env node
// The `lmem` launcher (ADR 26). Node 20 resolves, reads and compiles each ES module on its own and
// keeps no compile cache: the CLI's ~350 modules cost more than the rest of a `status`. So the
// build (.ci/bundle-cli.mjs, run by `npm run setup`) bundles run.ts into one CommonJS file, with
// V8's code cache beside it, and the launcher runs that. It runs the compiled modules instead (the
// same code) for the doors, whose worker threads and static files are found beside their own
// modules, and when the bundle is missing or older than the last TypeScript build (a `tsc` alone).
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadBundle } from './bundle-loader.js';

const doors = new Set(['serve', 'mcp']);
const bundle = fileURLToPath(new URL('./bundle/lmem.cjs', import.meta.url));

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
  const compiled = mtime(fileURLToPath(new URL('../../../.tsbuildinfo', import.meta.url)));
  return built !== null && (compiled === null || compiled <= built);
}

const argv = process.argv.slice(2);
if (bundled(argv)) {
  const loaded = loadBundle(bundle, `${bundle}.cache`);
  process.exitCode = await loaded.main(argv);
  loaded.saveCache();
} else {
  const { main } = await import('./run.js');
  process.exitCode = await main(argv);
}
