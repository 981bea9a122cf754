import { safely, type ProgressSource } from '../shared/progress.js';
import type { Output } from './output.js';

export { importProgress, rebuildProgress, type ProgressSource } from '../shared/progress.js';

const width = 30;

function render(label: string, seconds: number, p: ReturnType<ProgressSource>): string {
  if (!p || p.total <= 0) return `${label} … ${seconds.toFixed(1)} s`;
  const share = Math.min(1, Math.max(0, p.done / p.total));
  const filled = Math.round(share * width);
  return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.floor(share * 100)}% ${p.done}/${p.total} ${seconds.toFixed(1)} s`;
}

/**
 * Runs `work` with a progress bar on stderr, redrawn ten times a second, only on a terminal and
 * never with --json (LMEM_PROGRESS=always forces it, for tests; =never turns it off).
 * Stdout is untouched, so output stays exactly what the command prints.
 */
export async function withProgress<T>(out: Output, label: string, source: ProgressSource, work: () => Promise<T>): Promise<T> {
  const mode = process.env.LMEM_PROGRESS;
  const on = !out.json && mode !== 'never' && (mode === 'always' || process.stderr.isTTY === true);
  if (!on) return work();
  const started = Date.now();
  const draw = () => process.stderr.write(`\r\x1b[K${render(label, (Date.now() - started) / 1000, safely(source))}`);
  const timer = setInterval(draw, 100);
  draw();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    draw();
    process.stderr.write('\n');
  }
}
