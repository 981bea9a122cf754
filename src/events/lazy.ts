import { createRequire } from 'node:module';

/**
 * A value made at its first use, then kept: for zod schemas a command may never need, since
 * building every schema at module load was a large part of each CLI start (ADR 26).
 */
export function lazy<T>(make: () => T): () => T {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

const load = createRequire(import.meta.url);

/** `node:fs/promises` at its first use: it brings a dozen of Node's own modules, 2 to 6 ms of a CLI start that writes no file with it. */
export const fsPromises = lazy(() => load('node:fs/promises') as typeof import('node:fs/promises'));
