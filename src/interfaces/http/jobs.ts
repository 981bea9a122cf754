import { EventEmitter } from 'node:events';
import type { Environment } from '../../engine/clock.js';
import { safely, type ProgressSource } from '../shared/progress.js';
import { toErrorReply, type ErrorBody } from './errors.js';
import { toWire } from './wire.js';

export interface Progress {
  readonly done: number;
  readonly total: number;
  readonly step: string | null;
}

export interface Job {
  readonly jobId: string;
  readonly kind: string;
  readonly actor: string;
  /** Set for a scoped caller: only that user's token sees the job. */
  readonly userId: string | null;
  state: 'running' | 'succeeded' | 'failed';
  progress: Progress;
  readonly createdAt: string;
  finishedAt: string | null;
  result?: unknown;
  error: ErrorBody | null;
}

export type Report = (progress: Progress) => void;

/** Runs `work` while copying what `source` reads of the engine's status into the job, four times a second. */
export async function polled<T>(report: Report, step: string, source: ProgressSource, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    const p = safely(source);
    if (p) report({ done: Math.min(p.done, p.total), total: Math.max(p.total, 1), step });
  }, 250);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

/**
 * Long operations run in the server's process as jobs: the request returns 202 with the job at
 * once; `GET /v1/jobs/:id` polls it and `GET /v1/jobs/:id/events` streams its progress (SSE).
 * Jobs live in memory only: what a job did is in the log; a restart forgets the job record.
 */
export function createJobs(env: Environment, keep = 1000) {
  const jobs = new Map<string, Job>();
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const view = (job: Job) => {
    const { userId: _userId, ...visible } = job;
    return toWire(visible) as Omit<Job, 'userId'>;
  };
  const changed = (job: Job) => events.emit(job.jobId, view(job));

  return {
    start(kind: string, who: { actor: string; userId: string | null }, work: (report: Report, jobId: string) => Promise<unknown>): Job {
      const job: Job = {
        jobId: env.newId(), kind, actor: who.actor, userId: who.userId, state: 'running',
        progress: { done: 0, total: 1, step: null }, createdAt: env.now().toISOString(), finishedAt: null, error: null,
      };
      jobs.set(job.jobId, job);
      // The oldest finished jobs go first once there are too many.
      for (const old of jobs.values()) if (jobs.size > keep && old.state !== 'running') jobs.delete(old.jobId);
      const report: Report = (progress) => {
        job.progress = progress;
        changed(job);
      };
      void work(report, job.jobId).then(
        (result) => {
          Object.assign(job, { state: 'succeeded', result, finishedAt: env.now().toISOString() });
          job.progress = { ...job.progress, done: job.progress.total };
          changed(job);
        },
        (error: unknown) => {
          Object.assign(job, { state: 'failed', error: toErrorReply(error).body, finishedAt: env.now().toISOString() });
          changed(job);
        },
      );
      return job;
    },
    get: (jobId: string): Job | undefined => jobs.get(jobId),
    list: (): Job[] => [...jobs.values()].reverse(),
    view,
    /** Calls `listener` on every change until the job ends; returns the unsubscribe. */
    watch(jobId: string, listener: (job: ReturnType<typeof view>) => void): () => void {
      events.on(jobId, listener);
      return () => events.off(jobId, listener);
    },
    /** Resolves when every running job has ended (shutdown). */
    async settle(): Promise<void> {
      const running = [...jobs.values()].filter((j) => j.state === 'running');
      await Promise.all(running.map((j) => new Promise<void>((resolve) => {
        const stop = this.watch(j.jobId, (v) => v.state !== 'running' && (stop(), resolve()));
      })));
    },
  };
}

export type Jobs = ReturnType<typeof createJobs>;
