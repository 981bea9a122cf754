import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../../src/engine/engine.js';
import { testEnvironment } from './engine.js';

/** What the browser tests look for in the seeded store. */
export interface SeededStore {
  readonly editable: string;
  readonly sessionId: string;
  readonly turns: number;
  readonly erasableUser: string;
  readonly erasableText: string;
  readonly graphNodes: number;
  /** The memories the seed's decay tick decayed (the active ones). */
  readonly decayed: number;
}

const notes: [user: string, session: string, text: string, participants: string[], topics: string[]][] = [
  ['alice', 'trip-chat', 'Alice booked the Hotel Sakura in Kyoto for the first week of April', ['Alice'], ['kyoto', 'hotel', 'travel']],
  ['alice', 'trip-chat', 'Alice wants to ride the Shinkansen from Tokyo to Kyoto', ['Alice'], ['kyoto', 'trains', 'travel']],
  ['alice', 'trip-chat', 'Alice is allergic to peanuts; restaurants must be told', ['Alice'], ['food', 'health']],
  ['alice', 'home', 'Alice drinks green tea every morning before work', ['Alice'], ['tea', 'habits']],
  ['bob', 'work', 'Bob leads the quarterly report due on the last Friday of March', ['Bob'], ['report', 'deadline', 'work']],
  ['bob', 'work', 'Bob prefers meetings before noon and hates Monday calls', ['Bob'], ['meetings', 'work']],
  ['bob', 'work', 'Bob and Alice share the budget spreadsheet for the offsite', ['Bob', 'Alice'], ['budget', 'work']],
  ['bob', 'home', 'Bob is learning to bake sourdough bread on weekends', ['Bob'], ['baking', 'habits']],
  ['carol', 'support', 'Carol asked to change the delivery address to 12 Harbour Street', ['Carol'], ['delivery', 'address']],
  ['carol', 'support', 'Carol reported that the blue kettle arrived with a cracked lid', ['Carol'], ['delivery', 'kettle']],
];

/** Clustered people, topics and one-off facts, so the graph has real communities (and a size the issue names). */
async function seedGraph(engine: MemoryEngine, targetNodes: number): Promise<void> {
  const clusters = 50;
  const people = 8;
  const topics = 20;
  const factsPerMemory = 6;
  const nodes = async () => (await engine.indexes.catchUp(), engine.indexes.graphView.view({ limit: 1 }).totalNodes);
  for (let i = 0; ; i += 1) {
    if (i % clusters === 0 && (await nodes()) >= targetNodes) return;
    const c = i % clusters;
    const round = Math.floor(i / clusters);
    const from = (pool: string, size: number, k: number) =>
      [...new Set(Array.from({ length: k }, (_, j) => `${pool} ${c}.${(round * k + j) % size}`))];
    // Every tenth memory also names a person of the next cluster: communities are joined, not islands.
    const guests = i % 10 === 0 ? [`person ${(c + 1) % clusters}.0`] : [];
    await engine.writeMemory({
      text: `Group ${c} note ${i}`,
      sessionId: `graph-${c % 5}`,
      personaId: 'analyst',
      participants: [...from('person', people, 2), ...guests],
      topics: from('topic', topics, 3),
      keyFacts: Array.from({ length: factsPerMemory }, (_, j) => `fact ${i}.${j}`),
    });
  }
}

/**
 * A store like a small deployment's: three users' memories, one archived, a conversation of
 * several turns with recalls and summaries, and a clustered graph of `graphNodes` nodes.
 */
export async function seedDashboardStore(dir: string, options: { graphNodes?: number } = {}): Promise<SeededStore> {
  const config = loadConfig({ overrides: { dataDir: dir, conversation: { summarizeThresholdRounds: 2 } } });
  const engine = await createMemoryEngine(config, { env: testEnvironment(Date.UTC(2026, 0, 5), 'seed'), maintenance: false });
  try {
    const ids: string[] = [];
    for (const [userId, sessionId, text, participants, topics] of notes) {
      const receipt = await engine.writeMemory({ text, userId, sessionId, participants, topics, importance: text.includes('allergic') ? 0.9 : 0.5 });
      ids.push(receipt.memoryId);
    }
    await engine.archiveMemory(ids[7] as string, 'hobby, not needed for work');
    const sessionId = 'trip-chat';
    const questions = ['Which hotel did I book in Kyoto?', 'How do I get from Tokyo to Kyoto?', 'Any food I must avoid on the trip?', 'What do I drink in the morning?'];
    for (const [n, question] of questions.entries()) {
      await engine.beforeLlmRequest({ sessionId, userId: 'alice', message: { messageId: `q${n + 1}`, content: question, senderName: 'Alice' } });
      await engine.afterLlmResponse({ sessionId, userId: 'alice', message: { messageId: `a${n + 1}`, content: `Here is what I remember about that (${n + 1}).` } });
    }
    // `lmem tick` at midnight the next day: it catches up the one date whose tick hour (03:00 UTC) has come since the first write, 2026-01-05.
    const { decayed, ticks } = await engine.lifecycle.tick(new Date(Date.UTC(2026, 0, 6)));
    if (ticks.map((t) => t.date).join() !== '2026-01-05') throw new Error(`the seed's tick ticked ${ticks.map((t) => t.date).join() || 'nothing'}`);
    const graphNodes = options.graphNodes ?? 0;
    if (graphNodes > 0) await seedGraph(engine, graphNodes);
    return { editable: ids[0] as string, sessionId, turns: questions.length, erasableUser: 'carol', erasableText: 'Harbour Street', graphNodes, decayed };
  } finally {
    await engine.close();
  }
}
