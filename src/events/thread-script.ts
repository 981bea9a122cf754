import { setPriority } from 'node:os';
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

/**
 * Called first by a worker thread that does background work (WAL checkpoints, a rebuild's digests):
 * it runs at nice 10, so on a machine of two cores the event loop's thread, which serves requests,
 * is scheduled before it (issue 17: pauses of 50-150 ms under a rebuild were the main thread waiting
 * for a core, not working). Linux keeps a nice value per thread (setpriority(2), NOTES); elsewhere
 * it would lower the whole process, so it is left alone there.
 */
export function runInBackground(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(10);
  } catch {
    // Not permitted here: the thread keeps the process's priority.
  }
}
