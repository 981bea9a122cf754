// A real writer for the SIGKILL trials: opens the engine on a data dir (as a host would, from the
// compiled library in dist/), writes memories one after another and prints each memory id only once
// its write has resolved (acknowledged). Every few writes it also updates or forgets an earlier one,
// so a kill can land in any kind of write. Runs until it is killed, or after `count` writes: then it
// closes, or with `hold` waits (its vector snapshots flushed, the WAL not checkpointed) to be killed.
import { loadConfig } from '../../../dist/src/engine/config.js';
import { createMemoryEngine } from '../../../dist/src/engine/engine.js';

const [dataDir, trial, count, then] = process.argv.slice(2);
const engine = await createMemoryEngine(loadConfig({ env: process.env, overrides: { dataDir } }), { maintenance: false });
process.stdout.write('open\n');
const limit = count === undefined ? Infinity : Number(count);
for (let n = 0; n < limit; n += 1) {
  const { memoryId } = await engine.writeMemory({
    text: `Trial ${trial} write ${n}: person ${n % 7} met person ${(n * 3) % 11} in city ${n % 5} about topic ${n % 13}`,
    sessionId: `trial-${trial}`,
    userId: `user-${n % 3}`,
  });
  process.stdout.write(`ack ${memoryId}\n`);
  if (n % 5 === 4) {
    await engine.updateMemory(memoryId, { importance: 0.9 });
    process.stdout.write(`updated ${memoryId}\n`);
  }
  if (n % 11 === 10) {
    await engine.forgetMemory(memoryId, 'fault trial');
    process.stdout.write(`forgot ${memoryId}\n`);
  }
}
if (then === 'hold') {
  // Longer than the vector store's flush delay: the snapshots on disk reach the log's head.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  process.stdout.write('held\n');
  setInterval(() => undefined, 60_000);
  await new Promise(() => undefined);
}
await engine.close();
process.stdout.write('closed\n');
