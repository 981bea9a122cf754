import { describe, expect, it } from 'vitest';
import { defaultLimits, logCeilings } from '../src/events/bounds.js';
import { ValidationError } from '../src/events/errors.js';
import { ConfigError, loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import { stampEvents } from '../src/commands/decider.js';
import { tempDir, testEnvironment, useTestEngine } from './support/engine.js';

let engine: MemoryEngine;
useTestEngine((e) => (engine = e));

const over = (bytes: number): string => 'y'.repeat(bytes + 1);
const refused = async (work: Promise<unknown>, field: string, setting?: string): Promise<void> => {
  const head = await engine.log.headPosition();
  await expect(work).rejects.toBeInstanceOf(ValidationError);
  await expect(work).rejects.toMatchObject({ field, ...(setting ? { message: expect.stringContaining(setting) } : {}) });
  expect(await engine.log.headPosition()).toBe(head);
};
const turn = (content: string, extra: Record<string, unknown> = {}) => ({ sessionId: 's1', userId: 'u1', message: { content }, recall: false, ...extra });

describe('bounds before the append: nothing over a limit reaches the log', () => {
  it('memory text, on write, update and import, at limits.memoryTextBytes (64 KiB by default)', async () => {
    expect(defaultLimits.memoryTextBytes).toBe(64 * 1024);
    await refused(engine.writeMemory({ text: over(defaultLimits.memoryTextBytes) }), 'text', 'limits.memoryTextBytes');
    // Multi-byte text is measured in UTF-8 bytes: 21,846 Han characters are 65,538 bytes.
    await refused(engine.writeMemory({ text: '记'.repeat(21_846) }), 'text', 'limits.memoryTextBytes');
    const { memoryId } = await engine.writeMemory({ text: 'y'.repeat(defaultLimits.memoryTextBytes) });
    await refused(engine.updateMemory(memoryId, { text: over(defaultLimits.memoryTextBytes) }), 'changes.text', 'limits.memoryTextBytes');
    await refused(engine.importMemories({ content: JSON.stringify([{ text: over(defaultLimits.memoryTextBytes) }]) }), 'row 1.text', 'limits.memoryTextBytes');
  });

  it('labels, reasons, ids and source messages', async () => {
    await refused(engine.writeMemory({ text: 'ok', topics: ['t'.repeat(501)] }), 'topics.0');
    await refused(engine.writeMemory({ text: 'ok', topics: Array.from({ length: 201 }, (_, i) => `t${i}`) }), 'topics');
    await refused(engine.writeMemory({ text: 'ok', sessionId: 's'.repeat(201) }), 'sessionId');
    const { memoryId } = await engine.writeMemory({ text: 'ok' });
    await refused(engine.forgetMemory(memoryId, 'r'.repeat(501)), 'reason');
    const source = { messageId: 'm', sessionId: 's', role: 'user', senderId: null, senderName: null, at: null };
    await refused(engine.writeMemory({ text: 'ok', sources: [{ ...source, content: over(defaultLimits.messageBytes) }] }), 'sources.0.content', 'limits.messageBytes');
    const sixteen = Array.from({ length: 9 }, (_, i) => ({ ...source, messageId: `m${i}`, content: 'y'.repeat(defaultLimits.messageBytes) }));
    await refused(engine.writeMemory({ text: 'ok', sources: sixteen }), 'sources', 'limits.sourcesBytes');
  });

  it('hook message content and the host history, at limits.messageBytes (1 MiB by default)', async () => {
    await refused(engine.beforeLlmRequest(turn(over(defaultLimits.messageBytes))), 'message.content', 'limits.messageBytes');
    await refused(engine.afterLlmResponse(turn(over(defaultLimits.messageBytes))), 'message.content', 'limits.messageBytes');
    const history = [{ role: 'user', content: over(defaultLimits.messageBytes) }];
    await refused(engine.beforeLlmRequest(turn('hi', { history })), 'history.0.content', 'limits.messageBytes');
    await refused(engine.conversation.reset('s1', 'r'.repeat(501)), 'reason');
  });

  it('the log itself refuses a new event over its ceilings, whatever path it took', async () => {
    const head = await engine.log.headPosition();
    const event = (text: string) =>
      stampEvents([{ type: 'MemoryWritten', schemaVersion: 2, data: {
        memoryId: 'raw', text, importance: 0.5, sessionId: null, personaId: null, userId: null, topics: [], keyFacts: [], participants: [], sentiment: null, sources: [],
      } }], { commandId: 'raw', now: '2026-01-01T00:00:00.000Z', actor: 'test' });
    await expect(engine.log.append('memory-raw', event(over(logCeilings.textBytes)))).rejects.toMatchObject({ field: 'events.0.data.text' });
    expect(await engine.log.headPosition()).toBe(head);
  });
});

describe('limits are settings', () => {
  it('a lower limit from the configuration is the one checked', async () => {
    const temp = tempDir();
    const config = loadConfig({ overrides: { dataDir: temp.dir, limits: { memoryTextBytes: 100, messageBytes: 50 } } });
    const small = await createMemoryEngine(config, { env: testEnvironment(), maintenance: false });
    try {
      await expect(small.writeMemory({ text: 'y'.repeat(101) })).rejects.toMatchObject({ field: 'text', message: expect.stringMatching(/101 bytes; the limit is 100 \(limits.memoryTextBytes\)/) });
      await expect(small.writeMemory({ text: 'y'.repeat(100) })).resolves.toMatchObject({ position: expect.any(BigInt) });
      await expect(small.beforeLlmRequest(turn('y'.repeat(51)))).rejects.toMatchObject({ field: 'message.content' });
    } finally {
      await small.close();
      temp.remove();
    }
  });

  it('refuses a limit of zero or over its maximum, naming the key', () => {
    expect(() => loadConfig({ overrides: { limits: { memoryTextBytes: 0 } } })).toThrow(ConfigError);
    expect(() => loadConfig({ overrides: { limits: { memoryTextBytes: 2 * 1024 * 1024 } } })).toThrow(/limits.memoryTextBytes/);
    expect(() => loadConfig({ overrides: { limits: { nope: 1 } } })).toThrow(/limits/);
  });
});
