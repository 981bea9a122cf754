import type { Reporter } from 'vitest/node';
import { clearFaultRows, faultTable, readFaultRows } from './table.js';

/** Prints the fault suite's table (issue 11) at the end of any run that ran fault tests. */
export default class FaultTableReporter implements Reporter {
  onInit(): void {
    // Rows of an earlier run must not pass for this one's.
    clearFaultRows();
  }

  onTestRunEnd(): void {
    const rows = readFaultRows();
    if (rows.length === 0) return;
    process.stdout.write(`\nfault suite (test/faults):\n${faultTable(rows)}\n`);
  }
}
