import type { ProjectionFailure } from './generations.js';

/**
 * A read model that stopped at an event it could not apply (ADR 23). Queries get this rather
 * than rows that are missing that event and everything after it.
 */
export class ProjectionFailedError extends Error {
  override readonly name = 'ProjectionFailedError';
  constructor(
    readonly projection: string,
    readonly failure: ProjectionFailure,
  ) {
    super(
      `read model ${projection} failed at log position ${failure.position}: ${failure.error}; ` +
        `it serves nothing until \`lmem rebuild ${projection}\` replays it (after the cause is fixed)`,
    );
  }
}

// SQLite's own trouble (a busy lock, a full disk, a damaged file) says nothing about the event: retried, not recorded.
const environmental = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|NOMEM|READONLY|CANTOPEN|INTERRUPT|PROTOCOL|CORRUPT|NOTADB|NOLFS|PERM|AUTH)/;

/** True when an apply failed because of the machine, not because of the event. */
export function isEnvironmental(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && environmental.test(code);
}

/** The error as it is stored and shown: its kind, then its message. */
export function describeFailure(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 2000);
  return String(error).slice(0, 2000);
}

/** A rebuild whose shadow stopped at an event it could not apply: the live generation stays as it was. */
export class RebuildFailedError extends Error {
  override readonly name = 'RebuildFailedError';
  constructor(
    readonly projection: string,
    readonly failure: ProjectionFailure,
  ) {
    super(`rebuild of ${projection} stopped at log position ${failure.position}: ${failure.error}`);
  }
}
