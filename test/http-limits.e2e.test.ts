import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/engine/config.js';
import { createMemoryEngine } from '../src/engine/engine.js';
import { createHttpServer } from '../src/interfaces/http/server.js';

describe('REST input schemas follow the configured limits (ADR 23)', () => {
  it('accepts a memory text over the default limit when the configuration allows it, and refuses one over the configured limit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lmem-doors-limits-'));
    const config = loadConfig({ overrides: { dataDir: dir, limits: { memoryTextBytes: 200 * 1024 } } });
    const engine = await createMemoryEngine(config, { maintenance: false });
    const http = await createHttpServer(engine, config);
    try {
      const post = (text: string) => http.app.inject({ method: 'POST', url: '/v1/memories', payload: { text } });
      const over = 'x'.repeat(300 * 1024);
      expect((await post('y'.repeat(100 * 1024))).statusCode).toBe(201);
      const refused = await post(over);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ field: 'text', code: 'invalid' });
      expect(engine.documents.count()).toBe(1);
    } finally {
      await http.close();
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
