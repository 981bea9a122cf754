import { createRequire } from 'node:module';

/**
 * A value made at its first use, then kept: for zod schemas a command may never need, since
 * building every schema at module load was a large part of each CLI start (ADR 26).
 */
export function lazy<T>(make: () => T): () => T {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** `make(key)` made at the first use of each key object, then kept while the key lives (one set of schemas per limits object). */
export function lazyPer<K extends object, T>(make: (key: K) => T): (key: K) => T {
  const made = new WeakMap<K, T>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(key)));
    return value;
  };
}

const load = createRequire(import.meta.url);

/** `node:fs/promises` at its first use: it brings a dozen of Node's own modules, 2 to 6 ms of a CLI start that writes no file with it. */
export const fsPromises = lazy(() => load('node:fs/promises') as typeof import('node:fs/promises'));
