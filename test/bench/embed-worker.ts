/**
 * A worker thread that computes hash embeddings for the projections benchmark's log build, so
 * embedding (the slowest part of building a large log) overlaps the main thread's derive and append.
 * The vectors are bit-for-bit what the provider computes on the main thread: the same pure function.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createHashEmbeddingProvider } from '../../src/providers/embeddings/index.js';

interface Request {
  readonly id: number;
  readonly texts: readonly string[];
}

const provider = createHashEmbeddingProvider(workerData as { dimension?: number; maxInputChars?: number });
const port = parentPort;
if (!port) throw new Error('embed-worker must run as a worker thread');

port.on('message', (request: Request) => {
  void provider.embed(request.texts).then((vectors) => {
    const buffers = vectors.map((v) => v.buffer as ArrayBuffer);
    port.postMessage({ id: request.id, buffers }, buffers);
  });
});
