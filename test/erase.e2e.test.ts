import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lmemIn } from './support/erasure-scan.js';

// Outputs go beside the store: nothing may be written inside the data dir (ADR 24).
const root = mkdtempSync(join(tmpdir(), 'lmem-erase-'));
const dataDir = join(root, 'store');
const lmem = (args: string[]) => lmemIn(dataDir, args);
const json = (args: string[]) => JSON.parse(lmem([...args, '--json']).stdout) as Record<string, unknown>;

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('lmem erase and backup', () => {
  it('refuses a subject with no data (exit 2, nothing written) and previews what an erase would shred', () => {
    json(['add', 'Carol plays zqcarolnote on the oboe', '--user', 'carol', '--session', 'cs1']);
    const head = (json(['status']) as { headPosition: string }).headPosition;
    const refused = lmem(['erase', '--user', 'nobody', '--reason', 'typo']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/invalid user: no data of user nobody to erase.*force/);
    const preview = lmem(['erase', '--preview', '--user', 'carol']);
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/erasing user carol would shred: \d+ events[\s\S]*1 memories \(0 derived[\s\S]*atoms, \d+ graph entries/);
    expect(json(['erase', '--preview', '--session', 'cs1'])).toMatchObject({ subject: { kind: 'session', id: 'cs1' }, memories: 1, derivedMemories: 0, messages: 0 });
    expect(json(['erase', '--preview', '--user', 'nobody'])).toMatchObject({ events: 0, memories: 0 });
    expect(lmem(['erase', '--preview']).code).toBe(2);
    expect(lmem(['erase', '--preview', '--user', '']).stderr).toMatch(/invalid user: must not be empty/);
    // Neither the refusal nor the previews wrote anything; Carol is still there.
    expect((json(['status']) as { headPosition: string }).headPosition).toBe(head);
    expect((json(['search', 'zqcarolnote']) as { memories: unknown[] }).memories).toHaveLength(1);
  });

  it('erases a user: counts, the event, no plaintext in the file or a later backup, others untouched', () => {
    const alice = json(['add', 'Alice hides zqalicesecret under the stairs', '--user', 'alice']);
    json(['add', 'Bob keeps zqbobnote in the drawer', '--user', 'bob']);
    expect(lmem(['erase', '--reason', 'asked']).code).toBe(2);
    expect(lmem(['erase', '--user', 'alice']).stderr).toMatch(/reason/);

    const receipt = json(['erase', '--user', 'alice', '--reason', 'right to be forgotten']);
    expect(receipt).toMatchObject({ subject: { kind: 'user', id: 'alice' }, counts: { memories: 1 }, walTruncated: true });
    const backupPath = join(root, 'backup.db');
    expect(json(['backup', backupPath])).toMatchObject({ path: backupPath });
    for (const file of [join(dataDir, 'livingmemory.db'), backupPath]) {
      const bytes = readFileSync(file);
      expect(bytes.includes('zqalicesecret')).toBe(false);
    }
    const events = json(['events', '--tail', '50']) as unknown as { type: string; data: Record<string, unknown> }[];
    expect(events.find((e) => e.type === 'SubjectErased')?.data).toMatchObject({ reason: 'right to be forgotten', counts: { memories: 1 } });
    expect(events.find((e) => e.data['memoryId'] === alice.memoryId && e.type === 'MemoryWritten')?.data).toMatchObject({ text: '[erased]' });
    // Run again: Alice has no data left, so it is refused (exit 2) and nothing is written, unless forced.
    const head = (json(['status']) as { headPosition: string }).headPosition;
    const again = lmem(['erase', '--user', 'alice', '--reason', 'again']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/no data of user alice to erase/);
    expect((json(['status']) as { headPosition: string }).headPosition).toBe(head);
    expect(json(['erase', '--user', 'alice', '--reason', 'again', '--force'])).toMatchObject({ forced: true, keyIds: [], counts: { memories: 0, events: 0 } });
    const found = json(['search', 'zqbobnote', '--scope', 'user', '--user', 'bob']) as { memories: { text: string }[] };
    expect(found.memories.map((m) => m.text)).toEqual(['Bob keeps zqbobnote in the drawer']);
  });
});
