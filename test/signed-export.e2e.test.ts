import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine } from '../src/engine/engine.js';
import { storeSigner } from '../src/engine/signing.js';
import { verifyComplianceExport } from '../src/replay/compliance/verify.js';
import { testEnvironment } from './support/engine.js';

// Issue 11, case 8: editing records.jsonl and recomputing its sha256 in manifest.json still "verified".
const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
const root = mkdtempSync(join(tmpdir(), 'lmem-signed-'));
const dataDir = join(root, 'store');
const exported = join(root, 'export');
const publicKey = join(root, 'store.pem');
const lmem = (args: string[]) => {
  // In a folder of its own: a command that wrongly opened the default store would leave ./data there.
  const result = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root, env: { PATH: process.env.PATH } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
};
type Check = { ok: boolean; problems: string[]; signature: { checkedAgainst: string; valid: boolean; meaning: string }; chainHead: { checked: boolean; ok: boolean } };
const modes = { embedded: [] as string[], key: ['--public-key', publicKey], store: ['--data-dir', dataDir] };
const check = (dir: string, mode: keyof typeof modes) => {
  const run = lmem(['compliance-export', '--verify', dir, '--json', ...modes[mode]]);
  return { code: run.code, report: JSON.parse(run.stdout) as Check, stderr: run.stderr };
};
const copyOfExport = (name: string): string => {
  const dir = join(root, name);
  cpSync(exported, dir, { recursive: true });
  return dir;
};
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  const engine = await createMemoryEngine(loadConfig({ overrides: { dataDir } }), { env: testEnvironment(Date.UTC(2026, 0, 1), 'sig'), maintenance: false, llmProvider: null });
  await engine.writeMemory({ text: 'Ann drinks green tea', userId: 'ann', sessionId: 's1' });
  await engine.beforeLlmRequest({ sessionId: 's1', userId: 'ann', message: { messageId: 'u1', content: 'which tea does Ann drink?', senderId: 'ann' } });
  await engine.afterLlmResponse({ sessionId: 's1', userId: 'ann', message: { messageId: 'a1', content: 'green tea' } });
  await engine.close();
  expect(lmem(['compliance-export', '--all', '--out', exported, '--data-dir', dataDir]).code).toBe(0);
  const key = lmem(['keys', 'export-public', '--out', publicKey, '--data-dir', dataDir]);
  expect(key.code, key.stderr).toBe(0);
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('signed compliance exports', () => {
  it('verifies in each mode and says what each proves', () => {
    expect(readdirSync(exported).sort()).toEqual(['manifest.json', 'manifest.sig', 'records.csv', 'records.jsonl']);
    expect(readFileSync(publicKey, 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=]+\n-----END PUBLIC KEY-----\n$/);
    const embedded = check(exported, 'embedded');
    expect(embedded.code).toBe(0);
    expect(embedded.report.signature).toMatchObject({ valid: true, checkedAgainst: 'embedded-key-only' });
    expect(embedded.report.signature.meaning).toMatch(/key embedded in the manifest only.*proves nothing against a forger/);
    expect(check(exported, 'key').report).toMatchObject({ ok: true, signature: { checkedAgainst: 'public-key' }, chainHead: { checked: false } });
    expect(check(exported, 'store').report).toMatchObject({ ok: true, signature: { checkedAgainst: 'store' }, chainHead: { checked: true, ok: true } });
    const text = lmem(['compliance-export', '--verify', exported]);
    expect(text.stdout).toMatch(/signature: valid, checked against the key embedded in the manifest only/);
    expect(text.stdout).toMatch(/chain head: no store given/);
  }, 60_000);

  it('fails when any one byte of any file of the export changes, the manifest and the signature included', async () => {
    const dir = copyOfExport('flipped');
    const flips: string[] = [];
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const original = readFileSync(path);
      // Every byte of the manifest and its signature; 40 spread over each records file (their sha256 covers the rest).
      const small = name.startsWith('manifest');
      const positions = small ? original.map((_, i) => i) : Array.from({ length: 40 }, (_, k) => Math.floor((k * (original.length - 1)) / 39));
      for (const at of positions) {
        const bytes = Buffer.from(original);
        bytes[at] = (bytes[at] ?? 0) ^ 0x01;
        writeFileSync(path, bytes);
        const result = await verifyComplianceExport(dir);
        if (result.ok) flips.push(`${name}@${at}`);
      }
      writeFileSync(path, original);
      // And through the CLI, in each mode, for one byte in the middle of the file.
      const bytes = Buffer.from(original);
      const middle = Math.floor(bytes.length / 2);
      bytes[middle] = (bytes[middle] ?? 0) ^ 0x01;
      writeFileSync(path, bytes);
      for (const mode of ['embedded', 'key', 'store'] as const) expect(check(dir, mode).code, `${name} ${mode}`).toBe(3);
      writeFileSync(path, original);
    }
    expect(flips).toEqual([]);
    expect((await verifyComplianceExport(dir)).ok).toBe(true);
  }, 180_000);

  it("catches the issue's attack: records.jsonl edited and its sha256 recomputed in manifest.json", () => {
    const dir = copyOfExport('edited');
    const records = Buffer.from(readFileSync(join(dir, 'records.jsonl'), 'utf8').replace('green tea', 'black tea'));
    writeFileSync(join(dir, 'records.jsonl'), records);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { files: { name: string; sha256: string; bytes: number }[] };
    for (const f of manifest.files) if (f.name === 'records.jsonl') Object.assign(f, { sha256: sha256(records), bytes: records.length });
    writeFileSync(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const mode of ['embedded', 'key', 'store'] as const) {
      const { code, report } = check(dir, mode);
      expect(code, mode).toBe(3);
      expect(report.problems.join('\n')).toMatch(/signature of manifest\.json does not verify/);
    }
  }, 60_000);

  it('a forger who signs with a key of their own passes only the embedded-key check, which says it proves nothing', () => {
    const dir = copyOfExport('forged');
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { signing: { publicKey: string; keyId: string } };
    const forger = generateKeyPairSync('ed25519');
    const spki = forger.publicKey.export({ format: 'der', type: 'spki' });
    manifest.signing = { ...manifest.signing, publicKey: spki.toString('base64'), keyId: sha256(spki) };
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(dir, 'manifest.json'), bytes);
    writeFileSync(join(dir, 'manifest.sig'), `${sign(null, bytes, forger.privateKey).toString('base64')}\n`);
    expect(check(dir, 'embedded')).toMatchObject({ code: 0, report: { signature: { checkedAgainst: 'embedded-key-only' } } });
    for (const mode of ['key', 'store'] as const) {
      const { code, report } = check(dir, mode);
      expect(code, mode).toBe(3);
      expect(report.problems.join('\n')).toMatch(/signed by key [0-9a-f]{64}, not by the (store's key|given public key)/);
    }
  }, 60_000);

  it("checks the chain head against the store's log, even in a manifest the store's own key signed", async () => {
    const dir = copyOfExport('wrong-head');
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { log: { chainHeadHash: string } };
    manifest.log.chainHeadHash = 'ab'.repeat(32);
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    const db = new Database(join(dataDir, 'livingmemory.db'));
    const signer = storeSigner(db);
    db.close();
    writeFileSync(join(dir, 'manifest.json'), bytes);
    writeFileSync(join(dir, 'manifest.sig'), `${signer.sign(bytes).toString('base64')}\n`);
    expect(check(dir, 'key').code).toBe(0);
    const { code, report } = check(dir, 'store');
    expect(code).toBe(3);
    expect(report.chainHead).toMatchObject({ checked: true, ok: false });
    expect(report.problems.join('\n')).toMatch(/chain head \d+:(ab){32} is not in this store's log: anchor-mismatch/);
  }, 60_000);

  it('refuses an export without its signature, with a file added, and bad key or store arguments', () => {
    const unsigned = copyOfExport('unsigned');
    rmSync(join(unsigned, 'manifest.sig'));
    expect(check(unsigned, 'embedded').report.problems).toContain('manifest.sig: missing');
    const added = copyOfExport('added');
    writeFileSync(join(added, 'extra.jsonl'), '{}\n');
    expect(check(added, 'embedded')).toMatchObject({ code: 3, report: { problems: ['extra.jsonl: not in the manifest'] } });
    writeFileSync(join(root, 'not-a-key.pem'), 'hello');
    const badKey = lmem(['compliance-export', '--verify', exported, '--public-key', join(root, 'not-a-key.pem')]);
    expect(badKey.code).toBe(2);
    expect(badKey.stderr).toMatch(/invalid public-key: is not an Ed25519 public key/);
    const noStore = lmem(['compliance-export', '--verify', exported, '--data-dir', join(root, 'nothing-here')]);
    expect(noStore.code).toBe(2);
    expect(noStore.stderr).toMatch(/invalid data-dir: .* holds no store/);
    // Verifying without a store creates none.
    expect(readdirSync(root)).not.toContain('nothing-here');
    expect(readdirSync(root)).not.toContain('data');
  }, 60_000);
});
