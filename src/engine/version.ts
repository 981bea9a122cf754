import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's version, from the package.json above this module (source or dist). */
export function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === 'livingmemory' && parsed.version) return parsed.version;
    }
    dir = dirname(dir);
  }
  return '0.0.0';
}
