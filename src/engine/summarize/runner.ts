import { unsummarizedRounds } from '../../commands/conversation/state.js';
import type { ConversationQueries } from '../../queries/conversations.js';
import type { Environment } from '../clock.js';
import type { ConversationConfig } from '../conversation/config.js';
import type { ConversationStore } from '../conversation/store.js';
import type { LlmProvider } from '../../providers/llm/provider.js';
import { commandMetadata } from '../system-events.js';
import { segmentWindow } from './segment.js';
import { runSummaryTask, segmentMemoryId, type MemoryWriter, type SummaryContext, type TaskOutcome } from './task.js';

export interface TaskStatus {
  readonly taskId: string;
  readonly sessionId: string;
  readonly state: 'running' | TaskOutcome;
  readonly error?: string;
}

interface Tracked {
  status: TaskStatus;
  readonly controller: AbortController;
  readonly done: Promise<TaskStatus>;
}

interface RunnerDeps {
  readonly store: ConversationStore;
  readonly conversations: ConversationQueries;
  readonly llm: LlmProvider | null;
  readonly memories: MemoryWriter & { exists(memoryId: string): boolean };
  readonly env: Environment;
  readonly config: ConversationConfig;
  readonly actor: string;
}

const keptSettled = 100;

/** Background summary tasks: scheduled per session, tracked with their errors, cancelled and awaited at close. */
export function createSummaryRunner(deps: RunnerDeps) {
  const { store, env, config } = deps;
  const tracked = new Map<string, Tracked>();
  const meta = () => commandMetadata(env, deps.actor);

  const start = (taskId: string, context: SummaryContext, revision: number, segments: Parameters<typeof runSummaryTask>[1]['segments'], llm: LlmProvider): Tracked => {
    const controller = new AbortController();
    const entry: Tracked = {
      status: { taskId, sessionId: context.sessionId, state: 'running' },
      controller,
      done: runSummaryTask({ store, llm, memories: deps.memories, env, actor: deps.actor }, { taskId, context, revision, segments, signal: controller.signal })
        .then((state) => (entry.status = { ...entry.status, state }))
        .catch((error: unknown) => (entry.status = { ...entry.status, state: 'failed', error: error instanceof Error ? error.message : String(error) })),
    };
    tracked.set(taskId, entry);
    // A long-lived engine keeps the latest settled tasks (and their errors) for inspection, not all.
    void entry.done.then(() => {
      const settled = [...tracked].filter(([, t]) => t.status.state !== 'running');
      for (const [id] of settled.slice(0, Math.max(0, settled.length - keptSettled))) tracked.delete(id);
    });
    return entry;
  };

  return {
    /**
     * Starts a summary of the session's backlog when it reached the threshold (or when `force`),
     * unless one is running or no summarizer is configured. Call under the session lock.
     */
    async maybeSchedule(context: SummaryContext, options: { force?: boolean; maxSegments?: number } = {}): Promise<string | null> {
      const llm = deps.llm;
      if (!llm) return null;
      const state = await store.state(context.sessionId);
      if (state.pending) return null;
      if (!options.force && unsummarizedRounds(state) < config.summarizeThresholdRounds) return null;
      const window = state.messages.slice(state.lastSummarizedIndex);
      const segments = segmentWindow(window, config.idleGapMinutes).slice(0, options.maxSegments ?? config.maxSegmentsPerRun);
      if (segments.length === 0) return null;
      const toIndex = (segments.at(-1)?.at(-1)?.index ?? -1) + 1;
      const taskId = env.newId();
      await store.handle({
        type: 'ScheduleSummary',
        data: { sessionId: context.sessionId, taskId, fromIndex: state.lastSummarizedIndex, toIndex, sessionRevision: state.revision },
        metadata: meta(),
      });
      start(taskId, context, state.revision, segments, llm);
      return taskId;
    },
    /** Settles when the task has committed, compensated or failed. */
    wait: async (taskId: string): Promise<TaskStatus | undefined> => tracked.get(taskId)?.done,
    /** Asks a task to stop; it forgets what it wrote but did not commit. */
    cancel(taskId: string): void {
      tracked.get(taskId)?.controller.abort();
    },
    cancelSession(sessionId: string): void {
      for (const t of tracked.values()) if (t.status.sessionId === sessionId && t.status.state === 'running') t.controller.abort();
    },
    tasks: (): TaskStatus[] => [...tracked.values()].map((t) => t.status),
    /** Cancels every running task and waits until each has settled (an erasure: a task holds messages in memory). */
    async cancelAll(): Promise<void> {
      const running = [...tracked.values()].filter((t) => t.status.state === 'running');
      for (const t of running) t.controller.abort();
      await Promise.all(running.map((t) => t.done));
    },
    /**
     * A summary left pending by a process that stopped: its uncommitted memory (named after the
     * task) is forgotten and the compensation recorded, so the session can be summarized again.
     */
    async recoverInterrupted(): Promise<number> {
      let recovered = 0;
      for (const session of deps.conversations.sessions()) {
        const pending = session.pendingSummary;
        if (!pending || tracked.has(pending.taskId)) continue;
        const state = await store.state(session.sessionId);
        const committed = new Set(state.summaries.flatMap((s) => s.memoryIds));
        const orphans: string[] = [];
        for (let n = 0; n < pending.toIndex - pending.fromIndex; n += 1) {
          const id = segmentMemoryId(pending.taskId, n);
          if (!committed.has(id) && deps.memories.exists(id)) orphans.push(id);
        }
        for (const id of orphans) await deps.memories.forget(id, 'summary compensated: interrupted');
        await store.handle({ type: 'CompensateSummary', data: { sessionId: session.sessionId, taskId: pending.taskId, memoryIds: orphans, reason: 'interrupted' }, metadata: meta() });
        recovered += 1;
      }
      return recovered;
    },
    /** Cancels every running task and waits for them, at most `timeoutMs`; returns how many did not settle. */
    async close(timeoutMs: number): Promise<number> {
      const running = [...tracked.values()].filter((t) => t.status.state === 'running');
      for (const t of running) t.controller.abort();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
      await Promise.race([Promise.all(running.map((t) => t.done)), timeout]).finally(() => clearTimeout(timer));
      return running.filter((t) => t.status.state === 'running').length;
    },
  };
}

export type SummaryRunner = ReturnType<typeof createSummaryRunner>;
