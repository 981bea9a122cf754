import type { LayoutInput, LayoutOutput } from './protocol';
import type { Renderer } from './renderer';
import { seedPositions } from './seed';

/** GET /v1/graph: nodes with their community, edges merged per node pair, communities by size. */
export interface GraphAnswer {
  nodes: { key: string; type: string; value: string; degree: number; community: number }[];
  edges: { source: string; target: string; weight: number }[];
  communities: { id: number; size: number; isolates: boolean; label: string }[];
  isolates: number | null;
  totalNodes: number;
  totalEdges: number;
  modularity: number;
  computeMs: number;
}

export interface StageState { tick: number; done: boolean; drawn: number; firstFrameMs: number }

/** Where the graph's load began (set by the page before it asks the server), for the first-frame figure. */
export const requestMark = 'graph-request';

/** Hands the graph to the layout worker and the renderer; returns what stops both. */
export function startLayout(graph: GraphAnswer, renderer: Renderer, report: (s: StageState) => void): () => void {
  const index = new Map(graph.nodes.map((n, i) => [n.key, i]));
  const communities = Int32Array.from(graph.nodes, (n) => n.community);
  const edges = graph.edges.filter((e) => e.source !== e.target && index.has(e.source) && index.has(e.target));
  const links = new Uint32Array(edges.length * 2);
  const weights = new Float32Array(edges.length);
  edges.forEach((e, i) => ((links[2 * i] = index.get(e.source) ?? 0), (links[2 * i + 1] = index.get(e.target) ?? 0), (weights[i] = e.weight)));
  const radius = Float32Array.from(graph.nodes, (n) => 2 + Math.min(6, Math.sqrt(n.degree)));
  const sizes = graph.communities.map((c) => c.size);
  renderer.setData({ communities, links, radius, isolates: graph.isolates });
  // The seed is drawn from this thread at once: the first frame does not wait for the worker to start.
  renderer.setPositions(seedPositions(communities, sizes));

  const state: StageState = { tick: 0, done: false, drawn: 0, firstFrameMs: 0 };
  renderer.onFrame((drawn) => {
    state.drawn = drawn;
    if (!state.firstFrameMs && drawn === graph.nodes.length) {
      const start = performance.getEntriesByName(requestMark).at(-1)?.startTime ?? 0;
      performance.mark('graph-drawn');
      state.firstFrameMs = performance.now() - start;
    }
    report({ ...state });
  });
  const worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
  worker.onmessage = (event: MessageEvent<LayoutOutput>) => {
    const m = event.data;
    if (m.type === 'error') throw new Error(`graph layout failed: ${m.message}`);
    renderer.setPositions(m.xy);
    Object.assign(state, { tick: m.tick, done: m.done });
    if (m.done) report({ ...state });
  };
  const input: LayoutInput = { type: 'start', communities: communities.slice(), sizes, links: links.slice(), weights };
  worker.postMessage(input, [input.communities.buffer, input.links.buffer]);
  return () => worker.terminate();
}
