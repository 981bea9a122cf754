import type { SealedEventLog } from '../events/log/sealed-log.js';
import { coverageReport, type EmbeddingProvider } from '../providers/embeddings/index.js';
import type { Environment } from './clock.js';
import type { Indexes } from './indexes.js';
import { readModelLag } from './lag.js';
import type { Lifecycle } from './lifecycle/index.js';
import type { Maintenance } from './maintenance.js';
import type { SharedLog } from './shared-log.js';

export interface StatusDeps {
  readonly log: SealedEventLog;
  readonly env: Environment;
  readonly indexes: Indexes;
  readonly provider: EmbeddingProvider;
  readonly maintenance: Maintenance;
  readonly lifecycle: Lifecycle;
  readonly sharing: () => SharedLog | null;
}

/** `engine.status()`: the log, each read model with its lag, maintenance, embedding coverage, the shared log, the lifecycle. */
export async function engineStatus(deps: StatusDeps) {
  const { log, indexes } = deps;
  const [projections, vectors, graphVectors] = [indexes.runner.status(), indexes.vectors.status(), indexes.graphVectors.status()];
  const checkpoints = [...projections.map((p) => p.checkpoint), vectors.checkpoint, graphVectors.checkpoint];
  const lag = await readModelLag(log, checkpoints, deps.env.now());
  const documentsFailed = projections.some((p) => p.name === 'documents' && p.failed);
  const sharing = deps.sharing();
  return {
    log: log.kind,
    headPosition: await log.headPosition(),
    projections: projections.map((p, i) => ({ ...p, lag: lag[i] })),
    vectors: { ...vectors, lag: lag[projections.length] },
    graphVectors: { ...graphVectors, lag: lag[projections.length + 1] },
    maintenance: deps.maintenance.status(),
    // A failed documents read model cannot be counted; status names it already.
    embedding: coverageReport(deps.provider, (charClass) => (documentsFailed ? 0 : indexes.documents.countActiveWith(charClass))),
    ...(sharing ? { shared: sharing.status() } : {}),
    lifecycle: deps.lifecycle.status(),
  };
}
