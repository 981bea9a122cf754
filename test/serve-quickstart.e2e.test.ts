import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cli = 'dist/src/interfaces/cli/main.cjs';

/** `lmem serve` as a process; resolves with the address it printed (one JSON object with --json). */
function serve(dataDir: string) {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--data-dir', dataDir, '--json'], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const address = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      try {
        resolve((JSON.parse(stdout) as { address: string }).address);
      } catch {
        // not the whole object yet
      }
    });
    void exited.then((code) => reject(new Error(`lmem serve exited ${code}: ${stderr}`)));
  });
  return { child, address, exited };
}

// The README's quick start, as a user runs it: the server as its own process, the curl calls as
// written (on the port it picked), then Ctrl-C; what was written is in the store afterwards.
describe('README quick start: lmem serve with curl', () => {
  const root = mkdtempSync(join(tmpdir(), 'lmem-serve-'));
  const dataDir = join(root, 'data');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes and recalls over REST, stops on SIGINT with exit 0, and keeps what it wrote', async () => {
    const server = serve(dataDir);
    const base = await server.address;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const curl = async (path: string, body: unknown) =>
      JSON.parse((await run('curl', ['-s', `${base}${path}`, '-H', 'content-type: application/json', '-d', JSON.stringify(body)])).stdout) as any;

    const written = await curl('/v1/memories', { text: 'Kim prefers tea to coffee', userId: 'kim' });
    expect(written.memoryId).toEqual(expect.any(String));
    const found = await curl('/v1/search', { query: 'what does Kim drink?', scope: { mode: 'user', userId: 'kim' } });
    expect(found.memories.map((m: { memoryId: string }) => m.memoryId)).toContain(written.memoryId);
    const refused = await curl('/v1/memories', { text: '' });
    expect(refused).toMatchObject({ field: 'text', code: expect.any(String), error: expect.any(String) });

    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    const { stdout } = await run(process.execPath, [cli, 'show', written.memoryId, '--data-dir', dataDir, '--json'], { env: { PATH: process.env.PATH ?? '' } });
    expect(JSON.parse(stdout)).toMatchObject({ text: 'Kim prefers tea to coffee' });
  }, 120_000);
});
