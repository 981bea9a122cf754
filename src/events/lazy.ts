/**
 * A value made at its first use, then kept: for zod schemas a command may never need, since
 * building every schema at module load was a large part of each CLI start (ADR 26).
 */
export function lazy<T>(make: () => T): () => T {
  let made: { readonly value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
