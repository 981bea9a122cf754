import { parentPort } from 'node:worker_threads';
import { louvainCommunities, type CommunityOptions, type WeightedTie } from '../../queries/communities.js';

/** A request to the Louvain thread; the answer carries the same id. */
export interface LouvainRequest {
  readonly id: number;
  readonly nodes: readonly string[];
  readonly ties: readonly WeightedTie[];
  readonly options?: CommunityOptions;
}

// Runs in a worker thread: a large graph's grouping must not stall the server's event loop.
parentPort?.on('message', (request: LouvainRequest) => {
  try {
    const found = louvainCommunities(request.nodes, request.ties, request.options);
    parentPort?.postMessage({ id: request.id, ok: true, found });
  } catch (error) {
    parentPort?.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
