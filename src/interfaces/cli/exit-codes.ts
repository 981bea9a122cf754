/**
 * The exit-code contract of `lmem` (README, ADR 26): 0 done; 1 a failure that is not the input's
 * fault (I/O, a conflict that outlived its retries, a corrupt event, a bug); 2 bad input (usage,
 * a flag or value refused, a domain rule, the configuration), nothing written; 3 a check ran and
 * found a problem (`verify`, `compliance-export --verify`).
 */
export const exitCodes = { ok: 0, failed: 1, badInput: 2, checkFailed: 3 } as const;

/** The exit code of `lmem verify` and `compliance-export --verify` on a finding. */
export const verifyFailedExitCode = exitCodes.checkFailed;
