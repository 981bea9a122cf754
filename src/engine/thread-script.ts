import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A worker thread's compiled script in src/engine; under the test runner (TypeScript sources) the build's copy. */
export function engineThreadScript(name: string): URL {
  const beside = new URL(`./${name}`, import.meta.url);
  return existsSync(fileURLToPath(beside)) ? beside : new URL(`../../dist/src/engine/${name}`, import.meta.url);
}
