import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A fresh temporary folder; every scenario takes its own new file in it. */
export function benchDir(prefix = 'lmem-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  return {
    dir,
    /** A new database path, never used before in this run. */
    file(name: string): string {
      n += 1;
      return join(dir, `${String(n).padStart(2, '0')}-${name}.db`);
    },
    remove(): void {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Timing {
  /** Wall-clock seconds, from the monotonic high-resolution clock. */
  readonly wall: number;
  /** CPU seconds of this process (user + system, all its threads): blind to I/O waits and mostly to other load. */
  readonly cpu: number;
}

/** How long `work` took. */
export async function timed(work: () => unknown): Promise<Timing> {
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  await work();
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  return { wall, cpu: (cpu.user + cpu.system) / 1e6 };
}

/** Events per second, of wall time and of CPU time. */
export interface Rates {
  readonly wall: number;
  readonly cpu: number;
}

export function rates(count: number, timing: Timing): Rates {
  return { wall: count / timing.wall, cpu: count / timing.cpu };
}

/** Progress for people: stderr only, so `--json` leaves stdout with the one JSON object. */
export function progress(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const fsNames: Record<number, string> = { 0xef53: 'ext4', 0x01021994: 'tmpfs', 0x9123683e: 'btrfs', 0x58465342: 'xfs', 0x794c7630: 'overlayfs' };

/** The kind of file system under `path`: tmpfs makes the fsync-bound figures meaningless. */
export function fileSystemOf(path: string): string {
  try {
    const type = statfsSync(path).type;
    return fsNames[type] ?? `0x${type.toString(16)}`;
  } catch {
    return 'unknown';
  }
}

/** Reads `--name=value` (or `--name value`) as a positive integer. */
export function intArg(name: string, fallback: number, argv: readonly string[] = process.argv): number {
  const at = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at < 0) return fallback;
  const arg = argv[at] ?? '';
  const raw = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[at + 1];
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} needs a positive integer, got ${String(raw)}`);
  return value;
}

/** Reads `--name=value` (or `--name value`) as a string, if given. */
export function strArg(name: string, argv: readonly string[] = process.argv): string | undefined {
  const at = argv.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  const arg = argv[at] ?? '';
  return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[at + 1];
}

/** Whether the module at `moduleUrl` is the program node was started with (not one imported by main.ts). */
export function isEntryPoint(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && pathToFileURL(entry).href === moduleUrl;
}

/** The `q`-quantile (0..1) by nearest rank: p50 is quantile(values, 0.5). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/** The arithmetic mean (NaN of nothing). */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}

const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/** Milliseconds per query, ours and raw; `cpu` the same of CPU time (the process's, every thread). */
export interface Latencies {
  readonly ours: number[];
  readonly raw: number[];
  readonly cpu: { readonly ours: number[]; readonly raw: number[] };
}

const cpuMs = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};

/** Times each query on both sides, alternating which goes first; the first `warmup` are not kept. */
export async function alternate(
  count: number,
  ours: (i: number) => Promise<unknown> | unknown,
  raw: (i: number) => unknown,
  warmup = 20,
): Promise<Latencies> {
  const out: Latencies = { ours: [], raw: [], cpu: { ours: [], raw: [] } };
  for (let i = 0; i < count + warmup; i += 1) {
    const q = i % count;
    const runOurs = async () => {
      const [t0, c0] = [process.hrtime.bigint(), process.cpuUsage()];
      await ours(q);
      return [ms(t0), cpuMs(c0)] as const;
    };
    const runRaw = () => {
      const [t0, c0] = [process.hrtime.bigint(), process.cpuUsage()];
      raw(q);
      return [ms(t0), cpuMs(c0)] as const;
    };
    let o: readonly [number, number];
    let r: readonly [number, number];
    if (i % 2 === 0) {
      o = await runOurs();
      r = runRaw();
    } else {
      r = runRaw();
      o = await runOurs();
    }
    if (i >= warmup) {
      out.ours.push(o[0]);
      out.raw.push(r[0]);
      out.cpu.ours.push(o[1]);
      out.cpu.raw.push(r[1]);
    }
  }
  return out;
}

/** The facts every benchmark report opens with: Node, CPUs, load at start and end, the temporary folder and its file system. */
export function machineMeta(dir: string, loadAtStart: number): Record<string, string | number> {
  return {
    node: process.version,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? '?'}`,
    loadAverage1mAtStart: Math.round(loadAtStart * 100) / 100,
    loadAverage1mAtEnd: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    tmpdir: `${dir} (${fileSystemOf(dir)})`,
  };
}
