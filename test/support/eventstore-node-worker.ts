// A LivingMemory node as its own process, for the multi-process test (test/eventstore-nodes.e2e.test.ts):
// opens the engine on its data dir with the log in EventStoreDB (the TEST STAND-IN there), writes
// memories into sessions shared with the other nodes, and checks read-your-writes for each.
// Usage: node eventstore-node-worker.js <url> <namespace> <dataDir> <node> <first> <count> <sessions>
import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine } from '../../src/engine/engine.js';

const [url, namespace, dataDir, node, first, count, sessions] = process.argv.slice(2) as [string, string, string, string, string, string, string];
const say = (line: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(line)}\n`);

const config = loadConfig({ overrides: { dataDir, log: { kind: 'eventstoredb', eventstoredb: { connectionString: url, namespace, readYourWritesTimeoutMs: 30_000 } } } });
const engine = await createMemoryEngine(config, { maintenance: false });
let behind = 0;
for (let i = Number(first); i < Number(first) + Number(count); i += 1) {
  const sessionId = `s${i % Number(sessions)}`;
  const receipt = await engine.writeMemory({ text: `${node} remembers item ${i} of ${sessionId}: green tea and violins`, sessionId, userId: `u${i % 3}` });
  // Read-your-writes: the receipt says the read models reached the write, and this node reads it.
  const seen = receipt.readModelsBehind === undefined && engine.documents.get(receipt.memoryId) !== undefined;
  if (!seen) behind += 1;
  say({ written: i + 1, memoryId: receipt.memoryId, seen });
}
await engine.close();
say({ done: true, behind });
