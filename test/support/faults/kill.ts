import { spawn } from 'node:child_process';

export interface Killed {
  /** 'SIGKILL' when the kill landed, else how the child ended by itself (`exit <code>`). */
  readonly ended: string;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KillPlan {
  /** Checked on every chunk of stdout and every `pollMs`; the child is SIGKILLed once it is true. */
  readonly when: (stdout: string) => boolean;
  readonly pollMs?: number;
  readonly env?: NodeJS.ProcessEnv;
  /** Gives up (kills, then rejects) after this long: a child that never reaches its kill point is a finding. */
  readonly timeoutMs?: number;
}

/** Runs `node <args>` as a real child and SIGKILLs it at the plan's point; resolves once it is dead. */
export function runUntilKilled(args: readonly string[], plan: KillPlan): Promise<Killed> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...plan.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const check = () => {
    if (child.exitCode === null && child.signalCode === null && plan.when(stdout)) child.kill('SIGKILL');
  };
  return new Promise<Killed>((resolve, reject) => {
    const poll = setInterval(check, plan.pollMs ?? 5);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child ${args.join(' ')} never reached its kill point: ${stderr.slice(-500)}`));
    }, plan.timeoutMs ?? 120_000);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      check();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ ended: signal ?? `exit ${code}`, stdout, stderr });
    });
  });
}

/** A small seeded generator (mulberry32): a failing trial is replayed with the seed the test prints. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of this run: LMEM_FAULT_SEED, or a fresh one (printed by the tests that use it). */
export const faultSeed = Number(process.env.LMEM_FAULT_SEED ?? Math.floor(Math.random() * 2 ** 31));
