/// <reference lib="webworker" />
import { forceLink, forceManyBody, forceSimulation, forceX, forceY, type SimulationNodeDatum } from 'd3-force';
import type { LayoutInput, LayoutOutput } from './protocol';
import { seedPositions } from './seed';

// The force layout runs here, off the page's thread: at 5,000 nodes a tick takes tens of milliseconds.
const scope = self as unknown as DedicatedWorkerGlobalScope;
// Ticks cost about n log n: a large graph settles in fewer, faster-cooling ticks.
const ticksFor = (n: number) => (n > 2000 ? 120 : 300);
const postEvery = 4;

interface Node extends SimulationNodeDatum { community: number; cx: number; cy: number }

function send(message: LayoutOutput, transfer: Transferable[] = []): void {
  scope.postMessage(message, transfer);
}

function positions(nodes: readonly Node[]): Float32Array {
  const xy = new Float32Array(nodes.length * 2);
  nodes.forEach((n, i) => ((xy[2 * i] = n.x ?? 0), (xy[2 * i + 1] = n.y ?? 0)));
  return xy;
}

function run(input: LayoutInput): void {
  // The same seed the page drew first: the layout moves on from that picture.
  const seeded = seedPositions(input.communities, input.sizes);
  const centre = new Map<number, { x: number; y: number; n: number }>();
  const nodes: Node[] = [];
  for (let i = 0; i < input.communities.length; i += 1) {
    const community = input.communities[i] ?? 0;
    const x = seeded[2 * i] ?? 0;
    const y = seeded[2 * i + 1] ?? 0;
    const c = centre.get(community) ?? { x: 0, y: 0, n: 0 };
    centre.set(community, { x: c.x + x, y: c.y + y, n: c.n + 1 });
    nodes.push({ index: i, x, y, community, cx: 0, cy: 0 });
  }
  for (const n of nodes) {
    const c = centre.get(n.community);
    if (c) (n.cx = c.x / c.n), (n.cy = c.y / c.n);
  }
  const links = [];
  let heaviest = 0;
  for (const w of input.weights) heaviest = Math.max(heaviest, w);
  for (let i = 0; i < input.weights.length; i += 1) {
    links.push({ source: input.links[2 * i] ?? 0, target: input.links[2 * i + 1] ?? 0, weight: input.weights[i] ?? 1 });
  }
  const simulation = forceSimulation(nodes)
    .force('charge', forceManyBody<Node>().strength(-12).theta(1.2).distanceMax(400))
    .force('link', forceLink<Node, { source: number; target: number; weight: number }>(links).distance(18)
      .strength((l) => 0.05 + 0.25 * (heaviest > 0 ? l.weight / heaviest : 0)))
    // Each node is pulled to its community's seed centre: communities stay where they were seeded.
    .force('x', forceX<Node>((n) => n.cx).strength(0.08))
    .force('y', forceY<Node>((n) => n.cy).strength(0.08))
    .stop();
  const maxTicks = ticksFor(nodes.length);
  simulation.alphaDecay(1 - Math.pow(0.001, 1 / maxTicks));
  let tick = 0;
  const step = () => {
    for (let k = 0; k < postEvery && tick < maxTicks; k += 1, tick += 1) simulation.tick();
    const done = tick >= maxTicks || simulation.alpha() < simulation.alphaMin();
    const xy = positions(nodes);
    send({ type: 'positions', xy, tick, done }, [xy.buffer]);
    if (!done) setTimeout(step, 0);
  };
  setTimeout(step, 0);
}

scope.onmessage = (event: MessageEvent<LayoutInput>) => {
  try {
    if (event.data.type === 'start') run(event.data);
  } catch (error) {
    send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
};
