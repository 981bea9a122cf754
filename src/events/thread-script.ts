import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A worker thread's compiled script `name` beside the module at `moduleUrl`; under the test runner
 * (TypeScript sources, no .js beside them) the build's copy of the same folder in dist; null when
 * neither is built (the caller does the work on its own thread).
 */
export function threadScript(moduleUrl: string, name: string): URL | null {
  const beside = new URL(`./${name}`, moduleUrl);
  if (existsSync(fileURLToPath(beside))) return beside;
  const at = beside.pathname.lastIndexOf('/src/');
  const built = new URL(`${beside.pathname.slice(0, at)}/dist${beside.pathname.slice(at)}`, 'file://');
  return existsSync(fileURLToPath(built)) ? built : null;
}
