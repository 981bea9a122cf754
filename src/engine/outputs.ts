import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeThrough } from '../replay/output/atomic.js';
import { checkOutputDir, checkOutputFile, type StoreLocation, type TargetRequest } from '../replay/output/target.js';
import type { Config } from './config.js';

/**
 * The one guard of everything the engine writes outside the log: exports, compliance exports,
 * backups, public keys. A target is resolved to its real path and refused inside the data dir,
 * on a store file, or on an existing file without `force`; the bytes go through a temporary file.
 */
export function createOutputs(config: Pick<Config, 'dataDir' | 'databaseFile'>) {
  const db = join(config.dataDir, config.databaseFile);
  const store: StoreLocation = { dataDir: config.dataDir, files: [db, `${db}-wal`, `${db}-shm`, `${db}-journal`] };
  return {
    store,
    /** The real path of a file target, checked; nothing is written. */
    checkFile: (target: string, request: TargetRequest): string => checkOutputFile(target, store, request),
    /** The real path of a directory target that will hold `names`, checked; nothing is written. */
    checkDir: (target: string, names: readonly string[], request: TargetRequest): string => checkOutputDir(target, names, store, request),
    /** Writes text or bytes to a checked target through a temporary file; returns the real path written. */
    async writeFile(target: string, content: string | Buffer, request: TargetRequest): Promise<string> {
      const real = checkOutputFile(target, store, request);
      await writeThrough(real, (tmp) => writeFileSync(tmp, content), request);
      return real;
    },
  };
}

export type Outputs = ReturnType<typeof createOutputs>;
