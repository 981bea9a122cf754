import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import type { ComplianceRecord } from '../src/replay/compliance/records.js';
import { csvColumns } from '../src/replay/compliance/records.js';
import { parseCsv, unescapeFormula } from '../src/replay/transfer/csv.js';
import { testEnvironment, tempDir } from './support/engine.js';
import { generateGroupChat } from './support/group-chat.js';
import { standInSummarizer } from './support/stand-in-summarizer.js';

const sessionId = 'group-1';
const who = { sessionId, chatType: 'group' as const, userId: null };
const temp = tempDir();
let engine: MemoryEngine;
let forgottenId: string;

async function settle(): Promise<void> {
  for (const task of engine.conversation.tasks()) await engine.conversation.waitForTask(task.taskId);
}

beforeAll(async () => {
  const config = loadConfig({ overrides: { dataDir: join(temp.dir, 'store'), sqlite: { synchronous: 'NORMAL' }, conversation: { summarizeThresholdRounds: 4 } } });
  engine = await createMemoryEngine(config, { env: testEnvironment(Date.UTC(2026, 2, 1), 'ce'), maintenance: false, llmProvider: standInSummarizer().provider });
  const turns = generateGroupChat(6);
  for (const [n, t] of turns.entries()) {
    // Alice types a formula and a command into the chat on day 2: the CSV must not run them.
    const user = n === 8 ? '=SUM(A1)' : n === 10 ? '@cmd' : t.user;
    await engine.beforeLlmRequest({ ...who, message: { messageId: `u${n}`, content: user, senderId: t.speaker.id, senderName: t.speaker.name, sentAt: t.at } });
    await engine.afterLlmResponse({ ...who, inReplyTo: `u${n}`, message: { messageId: `a${n}`, content: t.reply, senderName: 'Assistant', sentAt: t.replyAt } });
    if (n === 15) {
      await settle();
      // The host takes back the last round (Bob's u15 and its reply); the next request says so.
      await engine.beforeLlmRequest({ ...who, checkpointId: 'a14', message: { messageId: 'u15b', content: 'Alice again: the paint dries overnight.', senderId: 'alice', senderName: 'Alice', sentAt: t.replyAt } });
    }
  }
  await settle();
  await engine.conversation.summarize({ sessionId });
  const memories = engine.documents.list({ status: 'active', limit: 100 });
  forgottenId = memories.find((m) => m.text.includes('Alice here'))?.memoryId ?? '';
  await engine.forgetMemory(forgottenId, 'Alice asked to forget the puppy talk');
}, 60_000);

afterAll(async () => {
  await engine.close();
  temp.remove();
});

const readJsonl = (dir: string): ComplianceRecord[] =>
  readFileSync(join(dir, 'records.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ComplianceRecord);

describe('compliance export of a subject of the three-day group conversation', () => {
  it('lists what was remembered and forgotten, with provenance, and only the subject\'s messages', async () => {
    const dir = join(temp.dir, 'alice');
    const manifest = await engine.complianceExport({ user: 'alice' }, { dir });
    const records = readJsonl(dir);
    const messages = records.filter((r) => r.record === 'message');
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m) => m.userId === 'alice')).toBe(true);
    expect(messages.map((m) => m.id)).toContain('u15b');

    const memory = records.find((r) => r.record === 'memory' && r.id === forgottenId);
    expect(memory?.text?.length).toBeGreaterThan(0);
    const sources = records.filter((r) => r.record === 'source' && r.memoryId === forgottenId);
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) {
      expect(s.sessionId).toBe(sessionId);
      expect(s.details.at).toMatch(/^2026-03-0[2-4]T/);
      expect(memory?.text).toContain(s.text ?? '');
    }
    const forgetting = records.find((r) => r.record === 'forgetting' && r.id === forgottenId);
    expect(forgetting).toMatchObject({ reason: 'Alice asked to forget the puppy talk', details: { kind: 'memory' } });
    expect(forgetting?.occurredAt).toMatch(/^2026-/);
    expect(forgetting?.actor.length).toBeGreaterThan(0);
    // Bob's messages are not Alice's: they show only as sources of memories Alice's messages are in.
    expect(records.some((r) => r.record === 'message' && r.id === 'u15')).toBe(false);
    expect(records.some((r) => r.record === 'forgetting' && r.details.kind === 'message')).toBe(false);
    expect(manifest.subject).toEqual({ kind: 'user', id: 'alice' });
  });

  it('lists the rolled-back messages of a session as forgotten, and the turn recalls', async () => {
    const dir = join(temp.dir, 'session');
    const manifest = await engine.complianceExport({ session: sessionId }, { dir, format: 'jsonl' });
    const records = readJsonl(dir);
    const rolledBack = records.filter((r) => r.record === 'forgetting' && r.details.kind === 'message').map((r) => r.id);
    expect(rolledBack.sort()).toEqual(['a15', 'u15']);
    expect(records.filter((r) => r.record === 'message')).toHaveLength(37);
    expect(records.filter((r) => r.record === 'recall')).toHaveLength(19);
    expect(manifest.files.map((f) => f.name)).toEqual(['records.jsonl']);
    expect(manifest.counts.message).toBe(37);
  });

  it('writes a CSV that escapes formulas and parses back, and a manifest that verifies until a file is changed', async () => {
    const dir = join(temp.dir, 'csv');
    const manifest = await engine.complianceExport({ session: sessionId }, { dir });
    expect(manifest.log.chainOk).toBe(true);
    expect(manifest.log.chainHeadPosition).toBe((await engine.log.headPosition()).toString());
    expect(manifest.log.chainHeadHash).toMatch(/^[0-9a-f]{64}$/);
    const rows = parseCsv(readFileSync(join(dir, 'records.csv'), 'utf8'), 100_000);
    expect(rows[0]).toEqual([...csvColumns]);
    expect(rows.length - 1).toBe(readJsonl(dir).length);
    const text = csvColumns.indexOf('text');
    const cells = rows.filter((r) => r[0] === 'message').map((r) => r[text] ?? '');
    expect(cells).toContain("'=SUM(A1)");
    expect(cells).toContain("'@cmd");
    expect(cells.some((c) => /^[=+\-@]/.test(c))).toBe(false);
    expect(cells.map(unescapeFormula)).toContain('=SUM(A1)');

    expect(await engine.verifyComplianceExport(dir)).toMatchObject({ ok: true, problems: [] });
    appendFileSync(join(dir, 'records.csv'), 'message,1,x,x,x,x,x,,,,,x,,{}\r\n');
    const tampered = await engine.verifyComplianceExport(dir);
    expect(tampered.ok).toBe(false);
    expect(tampered.problems.join('\n')).toMatch(/records\.csv: sha256/);
    expect(tampered.problems.join('\n')).not.toMatch(/records\.jsonl/);
  });

  it('refuses a second subject, no subject, or a directory that already holds an export', async () => {
    await expect(engine.complianceExport({ user: 'alice', session: sessionId }, { dir: join(temp.dir, 'x') })).rejects.toThrow(/subject/);
    await expect(engine.complianceExport({}, { dir: join(temp.dir, 'x') })).rejects.toThrow(/subject/);
    await expect(engine.complianceExport({ all: true }, { dir: join(temp.dir, 'alice') })).rejects.toThrow(/already holds an export/);
  });
});
