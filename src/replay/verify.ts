import type { EventLog } from '../events/log/event-log.js';
import type { ChainReport, VerifyChainOptions } from '../events/log/verify-chain.js';
import type { Projection } from '../projections/projection.js';
import type { ProjectionRunner } from '../projections/runner.js';
import { projectionsAt } from './state-at.js';
import { checkVectors, type LiveVectors } from './verify-vectors.js';

/** One projection's live digest against a fresh replay of the log up to the same position. */
export interface ProjectionCheck {
  readonly name: string;
  readonly position: bigint;
  /** failed: the live catch-up or the replay threw (detail says why), so nothing could be compared. */
  readonly status: 'ok' | 'mismatch' | 'failed';
  readonly live: string | null;
  readonly replayed: string | null;
  readonly detail?: string;
}

export interface StoreVerification {
  readonly ok: boolean;
  readonly chain: ChainReport;
  readonly projections: readonly ProjectionCheck[];
}

export interface VerifyOptions {
  readonly log: EventLog & { verifyChain(options?: VerifyChainOptions): Promise<ChainReport> };
  readonly runner: ProjectionRunner;
  readonly projections: readonly Projection[];
  /** The FAISS projection, checked beside the SQLite ones when given. */
  readonly vectors?: readonly LiveVectors[];
  readonly chain?: VerifyChainOptions;
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Catches the live projections up to the log's head, replays the log up to that head into a
 * temporary in-memory store, and compares each projection's canonical digest with the live one.
 */
export async function verifyProjections(
  log: EventLog,
  runner: ProjectionRunner,
  projections: readonly Projection[],
  signal?: AbortSignal,
): Promise<ProjectionCheck[]> {
  const position = await log.headPosition();
  const failed = (live: (string | null)[], detail: string): ProjectionCheck[] =>
    projections.map((p, i) => ({ name: p.name, position, status: 'failed', live: live[i] ?? null, replayed: null, detail }));
  try {
    await runner.catchUp(undefined, position);
  } catch (error) {
    return failed([], `live catch-up: ${message(error)}`);
  }
  const statuses = new Map(runner.status().map((s) => [s.name, s]));
  const live = projections.map((p) => runner.digest(p.name));
  let fresh;
  try {
    fresh = await projectionsAt(log, projections, position, signal);
  } catch (error) {
    return failed(live, `replay: ${message(error)}`);
  }
  try {
    const replayFailures = new Map(fresh.runner.status().map((s) => [s.name, s.failed]));
    return projections.map((p, i): ProjectionCheck => {
      const replayed = fresh.runner.digest(p.name);
      const liveDigest = live[i] ?? null;
      const { checkpoint, failed: stopped } = statuses.get(p.name) ?? { checkpoint: undefined, failed: null };
      // A read model stopped at an event (ADR 23) is named with where and why, live or in the replay.
      const replayStopped = replayFailures.get(p.name);
      if (stopped || replayStopped) {
        const where = stopped ? 'live' : 'replay';
        const { position: at, error } = (stopped ?? replayStopped) as { position: bigint; error: string };
        return { name: p.name, position, status: 'failed', live: liveDigest, replayed, detail: `${where} stopped at log position ${at}: ${error}` };
      }
      if (checkpoint !== position) {
        return { name: p.name, position, status: 'failed', live: liveDigest, replayed, detail: `live checkpoint is ${checkpoint}` };
      }
      return { name: p.name, position, status: replayed === liveDigest ? 'ok' : 'mismatch', live: liveDigest, replayed };
    });
  } finally {
    fresh.close();
  }
}

/** The whole check behind `lmem verify`: the log's hash chain, then every projection's digest. */
export async function verifyStore(options: VerifyOptions): Promise<StoreVerification> {
  const chain = await options.log.verifyChain(options.chain);
  const projections = await verifyProjections(options.log, options.runner, options.projections);
  const checks = [...projections];
  for (const vectors of options.vectors ?? []) checks.push(await checkVectors(options.log, vectors));
  return { ok: chain.ok && checks.every((c) => c.status === 'ok'), chain, projections: checks };
}
