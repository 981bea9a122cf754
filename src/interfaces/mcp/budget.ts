import type { ServerConfig } from '../../engine/server-config.js';

export type Budget = ServerConfig['mcp']['budget'];

/** The tool budget ran out for this window: the agent should answer with what it has. */
class BudgetError extends Error {}

/**
 * The agent-tool budget of one MCP session: a window opens at its first call and lasts
 * `windowMs`; within it at most `maxCalls` calls and `maxChars` characters of output, and no call
 * runs past the window's end. A new window opens with the next call after it closed.
 */
export function createBudget(budget: Budget, now: () => number = Date.now) {
  let opened: number | null = null;
  let calls = 0;
  let chars = 0;
  const open = (): number => {
    const t = now();
    if (opened === null || t - opened >= budget.windowMs) {
      opened = t;
      calls = 0;
      chars = 0;
    }
    return opened;
  };
  return {
    /** Takes one call; returns the milliseconds it may run. */
    take(): number {
      const start = open();
      if (calls >= budget.maxCalls) throw new BudgetError(`tool budget spent: at most ${budget.maxCalls} calls in ${budget.windowMs / 1000} s`);
      if (chars >= budget.maxChars) throw new BudgetError(`tool budget spent: at most ${budget.maxChars} characters of output in ${budget.windowMs / 1000} s`);
      calls += 1;
      return Math.max(1, start + budget.windowMs - now());
    },
    /** Cuts the output to what is left of the window's characters, saying so. */
    cut(text: string): string {
      const left = budget.maxChars - chars;
      const kept = text.length <= left ? text : `${text.slice(0, Math.max(0, left - 40))}\n[cut: tool output budget reached]`;
      chars += kept.length;
      return kept;
    },
  };
}

/** Rejects when `work` runs past `ms`; the work itself is not cancelled (its writes stay consistent). */
export function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BudgetError(`tool call ran past its time budget (${ms} ms)`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
