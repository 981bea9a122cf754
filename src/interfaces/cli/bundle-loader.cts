import { isAscii } from 'node:buffer';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The bundled CLI (ADR 26): its `main`, and a way to keep V8's code cache of it for the next start. */
export interface LoadedBundle {
  readonly main: (argv: readonly string[]) => Promise<number>;
  /** Writes V8's code cache of what ran so far when there was none or V8 refused it (or always, with `force`). */
  saveCache(force?: boolean): void;
}

/**
 * Runs the CommonJS bundle at `file` as Node's own loader would, but compiled through V8's code
 * cache in `cacheFile`: Node 20 keeps no compile cache of its own, and compiling the CLI's code is
 * a third of a cold `status`. A missing, stale or foreign cache is refused by V8 and costs nothing
 * but the compile it would have saved.
 */
export function loadBundle(file: string, cacheFile: string): LoadedBundle {
  const bytes = readFileSync(file);
  // The build writes it ASCII only: read as one-byte text, it skips UTF-8 decoding (~10 ms of 1 MB).
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new Script(wrapped, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const module = { exports: {} as { main?: LoadedBundle['main'] } };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(file), module, file, dirname(file));
  const { main } = module.exports;
  if (typeof main !== 'function') throw new Error(`${file} is not the CLI bundle (no main)`);
  const refused = cachedData === undefined || script.cachedDataRejected === true;
  return {
    main,
    saveCache(force = false) {
      if (!refused && !force) return;
      // Written beside and renamed: two CLI processes may finish at once; a read-only install keeps none.
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch {
        rmSync(tmp, { force: true });
      }
    },
  };
}
