import type { z } from 'zod';

/** Input that failed its schema; `field` is the dotted path of the first offending value. */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`invalid ${field}: ${detail}`);
  }
}

/** The stream was not at the revision the writer expected. */
export class ConcurrencyError extends Error {
  override readonly name = 'ConcurrencyError';
  constructor(
    readonly streamId: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`stream ${streamId}: expected revision ${expected}, found ${actual}`);
  }
}

/** A stored event that no longer parses as its schema; `position` says where it lies in the log. */
export class CorruptEventError extends Error {
  override readonly name = 'CorruptEventError';
  constructor(
    readonly position: bigint,
    readonly detail: string,
  ) {
    super(`corrupt event at global position ${position}: ${detail}`);
  }
}

export function fieldPath(path: readonly PropertyKey[], prefix = ''): string {
  const joined = path.map(String).join('.');
  return [prefix, joined].filter((p) => p.length > 0).join('.') || '(root)';
}

export function toValidationError(error: z.ZodError, prefix = ''): ValidationError {
  const issue = error.issues[0];
  if (!issue) return new ValidationError(prefix || '(root)', 'invalid');
  // An unknown key is named itself, not its parent object.
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
  return new ValidationError(fieldPath(path, prefix), issue.message);
}

/** Parses with a zod schema and throws a ValidationError naming the field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw toValidationError(result.error, prefix);
  return result.data;
}
