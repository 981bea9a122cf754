import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliIn, logHead } from './support/cli.js';
import { writeTinyModelDir } from './support/onnx-model.js';

// A user who brought a model: lmem pointed at its directory through the environment, as the README says.
const words = ['melanie', 'painted', 'a', 'sunrise', 'by', 'the', 'lake', 'caroline', 'went', 'to', 'support', 'group', 'on', 'tuesday'];

interface Found {
  memories: { text: string; explain?: { routes: Record<string, number> } }[];
}

function fingerprintEvents(dataDir: string): { provider: string; settings: Record<string, unknown> }[] {
  const db = new Database(join(dataDir, 'livingmemory.db'), { readonly: true });
  try {
    const rows = db.prepare("SELECT data FROM events WHERE type = 'ProviderFingerprintChanged' ORDER BY global_position").all() as { data: string }[];
    return rows.map((r) => (JSON.parse(r.data) as { current: { provider: string; settings: Record<string, unknown> } }).current);
  } finally {
    db.close();
  }
}

describe('lmem with the onnx embedding provider', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lm-onnx-cli-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('embeds memories with the model in embedding.modelDir and finds them by the vector route', () => {
    const modelDir = join(root, 'model');
    writeTinyModelDir(modelDir, { words, hidden: 16, pooling: 'mean' });
    const cli = cliIn(join(root, 'data'), { LIVINGMEMORY_EMBEDDING_PROVIDER: 'onnx', LIVINGMEMORY_EMBEDDING_MODEL_DIR: modelDir });
    expect(cli.run(['start']).code).toBe(0);
    expect(cli.run(['add', 'Melanie painted a sunrise by the lake']).code).toBe(0);
    expect(cli.run(['add', 'Caroline went to the support group on Tuesday']).code).toBe(0);
    expect(cli.json<{ embedding: { provider: string } }>(['status']).embedding.provider).toBe('onnx');

    const found = cli.json<Found>(['search', 'sunrise by the lake', '--explain']);
    expect(found.memories[0]?.text).toBe('Melanie painted a sunrise by the lake');
    expect(found.memories[0]?.explain?.routes['document.vector.raw']).toBeGreaterThan(0.5);
    expect(fingerprintEvents(cli.dataDir).map((f) => f.provider)).toEqual(['onnx']);

    // Another model file is another model: the store records the new fingerprint and re-embeds.
    appendFileSync(join(modelDir, 'model.onnx'), Buffer.from([0]));
    expect(cli.run(['start']).code).toBe(0);
    const changes = fingerprintEvents(cli.dataDir);
    expect(changes).toHaveLength(2);
    expect(changes[1]?.settings.files).not.toBe(changes[0]?.settings.files);
    expect(cli.json<Found>(['search', 'sunrise by the lake']).memories[0]?.text).toBe('Melanie painted a sunrise by the lake');
  });

  it('refuses a model directory that is not there, naming the setting, and changes nothing', () => {
    const cli = cliIn(join(root, 'data'));
    expect(cli.run(['start']).code).toBe(0);
    const head = logHead(cli.dataDir);
    const bad = cli.run(['add', 'a note'], { LIVINGMEMORY_EMBEDDING_PROVIDER: 'onnx', LIVINGMEMORY_EMBEDDING_MODEL_DIR: join(root, 'no-such-model') });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid embedding\.modelDir: .*no-such-model is not a directory/);
    const missing = cli.run(['status'], { LIVINGMEMORY_EMBEDDING_PROVIDER: 'onnx' });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/embedding\.modelDir.*required when provider is "onnx"/);
    expect(logHead(cli.dataDir)).toBe(head);
  });
});
