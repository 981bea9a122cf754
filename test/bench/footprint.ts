import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of every file under `dir` (the database, its WAL, the vector snapshots). */
export function bytesUnder(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => {
    const path = join(dir, name);
    const stat = statSync(path);
    return sum + (stat.isDirectory() ? bytesUnder(path) : stat.size);
  }, 0);
}

/** The process's peak resident memory so far, in MB (the engine runs in this process). */
export const peakRssMb = (): number => Math.round(process.resourceUsage().maxRSS / 1024);
