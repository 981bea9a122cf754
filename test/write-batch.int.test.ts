import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type EngineOptions, type MemoryEngine } from '../src/engine/engine.js';
import { engineProjections } from '../src/engine/indexes.js';
import { ValidationError } from '../src/events/errors.js';
import { controllableProvider, tempDir, testEnvironment } from './support/engine.js';

// Memories that share statements within a session, so a later one of a batch reinforces an atom an
// earlier one of the same batch extracted; some name their id, the others get one from the engine.
const statements = ['I live in Hangzhou.', 'Alice prefers green tea in the morning.', '我明天打算去北京出差。', 'Bob works at Acme as a designer.'];
const inputs = Array.from({ length: 40 }, (_, i) => ({
  ...(i % 3 === 0 ? {} : { memoryId: `m-${i}` }),
  text: `${statements[i % statements.length]} Note ${i}: the review of project Atlas moved to ${['Friday', 'Monday'][i % 2]}.`,
  sessionId: `s-${i % 3}`,
  importance: (i % 10) / 10,
  participants: ['Alice', 'Bob'].slice(0, 1 + (i % 2)),
  topics: ['work'],
  keyFacts: i % 5 === 0 ? ['Alice likes green tea'] : [],
}));

const opened: { engine: MemoryEngine; remove: () => void }[] = [];
afterEach(async () => {
  for (const { engine, remove } of opened.splice(0)) {
    await engine.close();
    remove();
  }
});

/** A fresh engine whose clock and ids are the same sequence as every other one's. */
async function open(options: EngineOptions = {}): Promise<MemoryEngine> {
  const temp = tempDir();
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: temp.dir } }), { env: testEnvironment(Date.UTC(2026, 0, 1), 'same'), maintenance: false, ...options });
  opened.push({ engine, remove: temp.remove });
  return engine;
}

async function logOf(engine: MemoryEngine) {
  const events = await engine.log.readAll({ from: 1n, limit: 100_000 });
  return events.map(({ streamId, streamRevision, globalPosition, type, data, metadata }) => ({ streamId, streamRevision, globalPosition, type, data, metadata }));
}

const digests = (engine: MemoryEngine) => engineProjections.map((p) => [p.name, engine.runner.digest(p.name)]);

describe('writeMemories', () => {
  it('given memories, when written in batches, then the log and every read model are those of writing them one by one', async () => {
    const single = await open();
    for (const input of inputs) await single.writeMemory(input);
    const batched = await open();
    const progress: number[] = [];
    const receipts = await batched.writeMemories(inputs, {}, { batchSize: 16, onProgress: (p) => progress.push(p.written) });

    const log = await logOf(batched);
    expect(log).toEqual(await logOf(single));
    // The batches did reinforce atoms they extracted themselves.
    expect(log.filter((e) => e.type === 'AtomReinforced').length).toBeGreaterThan(3);
    expect(digests(batched)).toEqual(digests(single));
    const status = await batched.status();
    expect(status.vectors.size).toBe(inputs.length);
    expect(status.vectors.pending).toBe(0);
    expect(status.graphVectors.size).toBe((await single.status()).graphVectors.size);
    expect(progress).toEqual([16, 32, 40]);
    expect(receipts.map((r) => r.memoryId)).toEqual(batched.documents.list({ limit: null }).sort((a, b) => a.createdAt.localeCompare(b.createdAt)).map((d) => d.memoryId));
    expect(receipts.at(-1)?.position).toBe(BigInt(log.at(-1)?.globalPosition ?? 0n));
  });

  it('given the embedding provider down, when written in batches, then each memory records its failure as writeMemory does', async () => {
    const down = () => {
      const { provider, control } = controllableProvider();
      control.down = true;
      return provider;
    };
    const single = await open({ embeddingProvider: down() });
    const expected = [];
    for (const input of inputs.slice(0, 10)) expected.push(await single.writeMemory(input));
    const batched = await open({ embeddingProvider: down() });
    const receipts = await batched.writeMemories(inputs.slice(0, 10), {}, { batchSize: 4 });
    const log = await logOf(batched);
    expect(log.filter((e) => e.type === 'MemoryEmbeddingFailed')).toHaveLength(10);
    expect(log).toEqual(await logOf(single));
    // Positions differ by design: a batch receipt names the memory's last event, its failure record included.
    const named = (r: { memoryId: string; embeddingError?: string }) => [r.memoryId, r.embeddingError];
    expect(receipts.map(named)).toEqual(expected.map(named));
    expect((await batched.status()).vectors.pending).toBe(10);
  });

  it('given one bad input or an id twice, when written, then the error names it and nothing is written', async () => {
    const engine = await open();
    const head = await engine.log.headPosition();
    const bad = inputs.map((input, i) => (i === 12 ? { ...input, importance: 2 } : input));
    await expect(engine.writeMemories(bad, {}, { batchSize: 5 })).rejects.toMatchObject({ name: ValidationError.name, field: 'inputs[12].importance' });
    const twice = [...inputs.slice(0, 5), { ...inputs[1]!, text: 'another text' }];
    await expect(engine.writeMemories(twice)).rejects.toMatchObject({ field: 'inputs[5].memoryId' });
    expect(await engine.log.headPosition()).toBe(head);
    await engine.writeMemories(inputs.slice(0, 3));
    await expect(engine.writeMemories([inputs[1]!])).rejects.toMatchObject({ field: 'inputs[0].memoryId' });
    expect(engine.documents.count()).toBe(3);
  });
});
