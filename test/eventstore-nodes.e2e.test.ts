import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from './support/engine.js';
import { engineDigests, openEventStoreEngine } from './support/eventstore-engine.js';
import { eventStoreTarget, eventStoreUnderTest, type EventStoreUnderTest } from './support/eventstore-log.js';

// Three nodes as separate processes on loopback, sharing one log (the TEST STAND-IN, or a real
// server with EVENTSTORE_URL), each writing into sessions the others write too. Sized for npm test;
// LMEM_MULTINODE_WRITES=500 runs the full size.
const writes = Number(process.env.LMEM_MULTINODE_WRITES ?? 40);
const sessions = 5;
const worker = join(process.cwd(), 'dist/test/support/eventstore-node-worker.js');

interface Line { written?: number; memoryId?: string; seen?: boolean; done?: boolean; behind?: number }

function startNode(target: EventStoreUnderTest, dir: string, node: string, first: number, count: number) {
  const child: ChildProcess = spawn(process.execPath, [worker, target.url, target.namespace, dir, node, String(first), String(count), String(sessions)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Line[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const listeners = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(JSON.parse(line) as Line);
    listeners.forEach((l) => l());
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = (done: (lines: Line[]) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (done(lines)) {
          listeners.delete(check);
          resolve();
        }
      };
      listeners.add(check);
      check();
    });
  return { child, lines, exited, until, stderr: () => stderr };
}

describe(`three node processes on one EventStoreDB log (${eventStoreTarget})`, () => {
  let target: EventStoreUnderTest;
  const dirs = [tempDir(), tempDir(), tempDir(), tempDir()];
  beforeAll(async () => {
    target = await eventStoreUnderTest();
  });
  afterAll(async () => {
    await target.cleanup();
    for (const d of dirs) d.remove();
  });

  it(`each writes ${writes} memories concurrently; one SIGKILLed mid-way and restarted; all read models equal each other and a fresh replay`, async () => {
    const [a, b, c] = ['a', 'b', 'c'].map((node, i) => startNode(target, (dirs[i] as { dir: string }).dir, node, 0, writes)) as [
      ReturnType<typeof startNode>, ReturnType<typeof startNode>, ReturnType<typeof startNode>,
    ];
    // Node c dies half-way through its writes, without a chance to close anything.
    await c.until((lines) => lines.filter((l) => l.written !== undefined).length >= writes / 2);
    c.child.kill('SIGKILL');
    await c.exited;
    const acknowledged = c.lines.filter((l) => l.written !== undefined).length;
    const restarted = startNode(target, (dirs[2] as { dir: string }).dir, 'c', acknowledged, writes - acknowledged);
    const codes = await Promise.all([a.exited, b.exited, restarted.exited]);
    expect(codes, [a, b, restarted].map((n) => n.stderr()).join('\n')).toEqual([0, 0, 0]);

    // Read-your-writes held for every acknowledged write, on every node.
    const acks = [...a.lines, ...b.lines, ...c.lines, ...restarted.lines].filter((l) => l.written !== undefined);
    expect(acks.length).toBe(3 * writes);
    expect(acks.filter((l) => !l.seen)).toEqual([]);
    for (const n of [a, b, restarted]) expect(n.lines.at(-1)).toEqual({ done: true, behind: 0 });

    // Every node's read models, caught up, equal each other and those of a node built fresh from the log.
    const digests = [];
    for (const d of dirs) {
      const engine = await openEventStoreEngine(d.dir, target.url, target.namespace, { follow: false });
      try {
        digests.push(await engineDigests(engine));
        expect(engine.documents.count()).toBeGreaterThanOrEqual(3 * writes);
      } finally {
        await engine.close();
      }
    }
    for (const other of digests.slice(1)) expect(other).toEqual(digests[0]);
  }, 900_000);
});
