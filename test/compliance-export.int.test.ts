import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine, type MemoryEngine } from '../src/engine/engine.js';
import type { ComplianceRecord } from '../src/replay/compliance/records.js';
import { csvColumns } from '../src/replay/compliance/records.js';
import { parseCsv, unescapeFormula } from '../src/replay/transfer/csv.js';
import { testEnvironment, tempDir } from './support/engine.js';
import { generateGroupConversation, groupAccounts, hostTurns } from './support/group-conversation.js';
import { standInSummarizer } from './support/stand-in-summarizer.js';

const conversation = generateGroupConversation({ turnsPerDay: 12, burstsPerDay: 2 });
const sessionId = conversation.sessionId;
const who = { sessionId, chatType: 'group' as const, userId: null };
const alice = groupAccounts.Alice[0];
const turns = hostTurns(conversation, 3);
// The host takes back this round (a message and its reply) once it was summarized; its next request says so.
const undone = turns.findIndex((t, n) => n > turns.length / 2 && t.reply !== null && t.message.senderId !== alice.id);
const temp = tempDir();
let engine: MemoryEngine;
let forgottenId: string;

async function settle(): Promise<void> {
  for (const task of engine.conversation.tasks()) await engine.conversation.waitForTask(task.taskId);
}

beforeAll(async () => {
  const config = loadConfig({ overrides: { dataDir: join(temp.dir, 'store'), sqlite: { synchronous: 'NORMAL' }, conversation: { summarizeThresholdRounds: 4 } } });
  engine = await createMemoryEngine(config, { env: testEnvironment(Date.UTC(2026, 2, 1), 'ce'), maintenance: false, llmProvider: standInSummarizer().provider });
  let kept = '';
  for (const [n, { message, reply }] of turns.entries()) {
    // Someone types a formula and a command into the chat: the CSV must not run them.
    const content = n === 8 ? '=SUM(A1)' : n === 10 ? '@cmd' : message.content;
    await engine.beforeLlmRequest({ ...who, message: { messageId: message.messageId, content, senderId: message.senderId, senderName: message.senderName, sentAt: message.at } });
    if (reply) await engine.afterLlmResponse({ ...who, inReplyTo: message.messageId, message: { messageId: reply.messageId, content: reply.content, senderName: 'Assistant', sentAt: reply.at } });
    if (n === undone) {
      await settle();
      const at = new Date(Date.parse(reply?.at ?? message.at) + 1000).toISOString();
      await engine.beforeLlmRequest({ ...who, checkpointId: kept, message: { messageId: 'after-rollback', content: 'Alice again: the paint dries overnight.', senderId: alice.id, senderName: alice.name, sentAt: at } });
      kept = 'after-rollback';
    } else {
      kept = reply?.messageId ?? message.messageId;
    }
  }
  await settle();
  await engine.conversation.summarize({ sessionId });
  const memories = engine.documents.list({ status: 'active', limit: 100 });
  forgottenId = memories.find((m) => engine.indexes.sources.of(m.memoryId).some((s) => s.senderId === alice.id))?.memoryId ?? '';
  await engine.forgetMemory(forgottenId, 'Alice asked to forget this');
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
    const manifest = await engine.complianceExport({ user: alice.id }, { dir });
    const records = readJsonl(dir);
    const messages = records.filter((r) => r.record === 'message');
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m) => m.userId === alice.id)).toBe(true);
    expect(messages.map((m) => m.id)).toContain('after-rollback');

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
    expect(forgetting).toMatchObject({ reason: 'Alice asked to forget this', details: { kind: 'memory' } });
    expect(forgetting?.occurredAt).toMatch(/^2026-/);
    expect(forgetting?.actor.length).toBeGreaterThan(0);
    // Bob's messages are not Alice's: they show only as sources of memories Alice's messages are in.
    expect(records.some((r) => r.record === 'message' && r.id === turns[undone]?.message.messageId)).toBe(false);
    expect(records.some((r) => r.record === 'forgetting' && r.details.kind === 'message')).toBe(false);
    expect(manifest.subject).toEqual({ kind: 'user', id: alice.id });
  });

  it('lists the rolled-back messages of a session as forgotten, and the turn recalls', async () => {
    const dir = join(temp.dir, 'session');
    const manifest = await engine.complianceExport({ session: sessionId }, { dir, format: 'jsonl' });
    const records = readJsonl(dir);
    const rolledBack = records.filter((r) => r.record === 'forgetting' && r.details.kind === 'message').map((r) => r.id);
    const round = turns[undone];
    expect(rolledBack.sort()).toEqual([round?.message.messageId, round?.reply?.messageId].sort());
    // Every message ever recorded (the rolled-back round too), and one recall per person's message.
    const recorded = turns.length + turns.filter((t) => t.reply).length + 1;
    expect(records.filter((r) => r.record === 'message')).toHaveLength(recorded);
    expect(records.filter((r) => r.record === 'recall')).toHaveLength(turns.length + 1);
    expect(manifest.files.map((f) => f.name)).toEqual(['records.jsonl']);
    expect(manifest.counts.message).toBe(recorded);
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
    await expect(engine.complianceExport({ user: alice.id, session: sessionId }, { dir: join(temp.dir, 'x') })).rejects.toThrow(/subject/);
    await expect(engine.complianceExport({}, { dir: join(temp.dir, 'x') })).rejects.toThrow(/subject/);
    await expect(engine.complianceExport({ all: true }, { dir: join(temp.dir, 'alice') })).rejects.toThrow(/alice already holds manifest\.json, manifest\.sig, records\.jsonl, records\.csv; give --force/);
  });
});
