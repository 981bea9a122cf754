import { faultSeed } from './kill.js';
import { recordFaultRow } from './table.js';

/** One input a fuzz class found wrong, and what was wrong with it. */
export interface Finding {
  readonly input: string;
  readonly problem: string;
  /** An answer of the wrong kind (exit code, 5xx, internal error), counted apart in the table. */
  readonly wrongAnswer: boolean;
}

/**
 * What a fuzz class of the fault suite keeps: its findings and how often each outcome came
 * (exit code, status), written as its row of the fault table even when the property failed.
 */
export function fuzzTally(className: string, outcomeLabel: string) {
  const findings: Finding[] = [];
  const outcomes: Record<string, number> = {};
  return {
    findings,
    count(outcome: string | number): void {
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    },
    find(input: string, problem: string, wrongAnswer: boolean): void {
      findings.push({ input, problem, wrongAnswer });
    },
    /** Prints each finding and the summary, and records the class's row (the seed replays it: LMEM_FAULT_SEED). */
    record(): void {
      for (const f of findings) process.stderr.write(`${className}: ${f.problem} <- ${f.input}\n`);
      const trials = Object.values(outcomes).reduce((a, b) => a + b, 0);
      recordFaultRow({
        class: className,
        trials,
        failures: findings.length,
        lost: 0,
        bricked: 0,
        wrongExitCodes: findings.filter((f) => f.wrongAnswer).length,
        markerFiles: 0,
        note: `${outcomeLabel} ${JSON.stringify(outcomes)}; seed ${faultSeed}`,
      });
      process.stderr.write(`${className}: ${trials} runs, ${findings.length} failures, ${outcomeLabel} ${JSON.stringify(outcomes)}\n`);
    },
  };
}
