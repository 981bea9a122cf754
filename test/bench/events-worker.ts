/**
 * A worker thread that derives the corpus's events (log-events.ts) for the projections benchmark's
 * log build, in order, one requested range at a time, while the main thread appends the previous one.
 */
import { parentPort } from 'node:worker_threads';
import { corpusEvents, derivedAtoms } from './log-events.js';

const port = parentPort;
if (!port) throw new Error('events-worker must run as a worker thread');
// Atoms seen so far: ranges must be asked for in order, as the engine would write the memories.
const atoms = derivedAtoms();
let expected = 0;

port.on('message', (request: { from: number; to: number }) => {
  if (request.from !== expected) throw new Error(`events-worker asked for ${request.from}, expected ${expected}`);
  expected = request.to;
  port.postMessage({ from: request.from, events: corpusEvents(request.from, request.to, atoms) });
});
