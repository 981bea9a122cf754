import { parentPort } from 'node:worker_threads';
import { louvainCommunities } from '../../queries/communities.js';
import type { LouvainAnswer, LouvainRequest } from './louvain-protocol.js';

// Runs in a worker thread: a large graph's grouping must not stall the server's event loop.
parentPort?.on('message', (request: LouvainRequest) => {
  try {
    const { nodes, sources, targets, weights } = request;
    const ties = Array.from(weights, (weight, i) => ({ source: nodes[sources[i] ?? 0] ?? '', target: nodes[targets[i] ?? 0] ?? '', weight }));
    const found = louvainCommunities(nodes, ties, request.options);
    const community = Int32Array.from(nodes, (key) => found.byNode.get(key) ?? 0);
    const answer: LouvainAnswer = { community, sizes: found.sizes, isolates: found.isolates, modularity: found.modularity };
    parentPort?.postMessage({ id: request.id, ok: true, answer }, [community.buffer]);
  } catch (error) {
    parentPort?.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
