import { workerData } from 'node:worker_threads';
import { answerOnce } from '../events/one-shot-thread.js';
import { digestFromFile, type DigestPlan } from './digest.js';

// Runs in a worker thread: one generation's digest, read and hashed off the event loop (issue 17).
answerOnce(() => {
  const { digest, position } = digestFromFile(workerData as DigestPlan);
  return { digest, position: position.toString() };
});
