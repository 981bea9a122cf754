import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../src/commands/errors.js';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import type { Environment } from '../src/engine/clock.js';
import { ValidationError } from '../src/events/errors.js';

let dir: string;
let engine: MemoryEngine;
let tick = 0;
const env: Environment = {
  now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick)),
  newId: () => `id-${(tick += 1)}`,
};

beforeEach(async () => {
  tick = 0;
  dir = mkdtempSync(join(tmpdir(), 'lmem-engine-'));
  engine = await createMemoryEngine(loadConfig({ overrides: { dataDir: dir } }), { env, maintenance: false });
});
afterEach(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('memory engine', () => {
  it('writes, updates, archives, restores and forgets, each visible at once', async () => {
    const { memoryId } = await engine.writeMemory({ text: 'Alice likes green tea', importance: 0.7, sessionId: 's1', topics: ['tea'] });
    expect(engine.documents.get(memoryId)).toMatchObject({ text: 'Alice likes green tea', importance: 0.7, sessionId: 's1', status: 'active' });
    await engine.updateMemory(memoryId, { text: 'Alice loves green tea' });
    expect(engine.documents.get(memoryId)?.text).toBe('Alice loves green tea');
    await engine.archiveMemory(memoryId);
    expect(engine.documents.list({ status: 'archived' }).map((d) => d.memoryId)).toEqual([memoryId]);
    await engine.restoreMemory(memoryId);
    await engine.forgetMemory(memoryId, 'user asked');
    expect(engine.documents.get(memoryId)).toMatchObject({ text: '', status: 'forgotten', statusReason: 'user asked' });
    const history = (await engine.log.readStream(`memory-${memoryId}`)).filter((e) => e.type.startsWith('Memory'));
    expect(history.map((e) => e.type)).toEqual(['MemoryWritten', 'MemoryUpdated', 'MemoryArchived', 'MemoryRestored', 'MemoryForgotten']);
    // Time comes from the engine's environment, never from a clock below it.
    expect(history[0]?.metadata).toMatchObject({ occurredAt: '2026-01-01T00:00:03.000Z', actor: 'cli' });
  });

  it.each([
    [{ text: '   ' }, 'text'],
    [{ text: 'ok', importance: 1.5 }, 'importance'],
    [{ text: 'ok', topics: 'tea' }, 'topics'],
    [{ text: 'ok', colour: 'blue' }, 'colour'],
  ])('refuses bad input %j naming %s and leaves the log unchanged', async (input, field) => {
    const head = await engine.log.headPosition();
    const attempt = engine.writeMemory(input as never);
    await expect(attempt).rejects.toBeInstanceOf(ValidationError);
    await expect(attempt).rejects.toMatchObject({ field });
    expect(await engine.log.headPosition()).toBe(head);
  });

  it('refuses to change a forgotten memory and appends nothing', async () => {
    const { memoryId } = await engine.writeMemory({ text: 'temporary' });
    await engine.forgetMemory(memoryId);
    const head = await engine.log.headPosition();
    await expect(engine.updateMemory(memoryId, { importance: 0.1 })).rejects.toBeInstanceOf(DomainError);
    await expect(engine.updateMemory(memoryId, { importance: 3 })).rejects.toMatchObject({ field: 'changes.importance' });
    expect(await engine.log.headPosition()).toBe(head);
  });

  it('records a requested rebuild as events and keeps the same digest', async () => {
    for (let i = 0; i < 20; i += 1) await engine.writeMemory({ text: `memory ${i}`, sessionId: `s${i % 3}` });
    const digest = engine.runner.digest('documents');
    const result = await engine.runner.rebuild('documents');
    expect(result.digest).toBe(digest);
    const system = await engine.log.readStream('system-projections');
    expect(system.map((e) => e.type)).toEqual(['ProjectionRebuildStarted', 'ProjectionRebuildCompleted']);
    expect(engine.documents.list({ sessionId: 's1' })).toHaveLength(7);
  });
});
