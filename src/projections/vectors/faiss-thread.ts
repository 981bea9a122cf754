/**
 * The worker thread that holds every exact FAISS index of the process (`faiss-host.ts`): searches,
 * adds, removals and index files are made here, off the event loop (issue 17). Requests are taken in
 * the order they were posted, so a search sees every add posted before it.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { createFaissOps, type FaissReply, type FaissRequest } from './faiss-ops.js';

const { flag, port } = workerData as { flag: Int32Array; port: MessagePort };
const ops = createFaissOps();

// A serialisation (a Buffer of its own) is handed over, not copied: at 100k vectors, copying its
// 100 MB held the receiving event loop for hundreds of ms.
const handedOver = (reply: FaissReply): ArrayBuffer[] => {
  const value = reply.ok ? reply.value : null;
  return value instanceof Uint8Array && value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? [value.buffer as ArrayBuffer] : [];
};

parentPort?.on('message', (m: FaissRequest) => {
  const reply = ops.answer(m);
  if (m.sync) {
    // The caller waits on `flag`, then takes the answer from `port` without its event loop.
    port.postMessage(reply, handedOver(reply));
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  } else if (m.id !== 0) parentPort?.postMessage(reply, handedOver(reply));
});
