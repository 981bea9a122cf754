import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, installed by .ci/setup.sh; playwright-core downloads no browser of its own. */
export const chromiumPath = process.env.LMEM_CHROMIUM ?? '/usr/bin/chromium';

// Without the background-networking flags Chromium's own connections are refused on a closed network.
const flags = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export const screenshotDir = join(process.cwd(), 'test-results', 'dashboard');

export interface Browser {
  readonly context: BrowserContext;
  /** A page whose console errors and uncaught exceptions are collected in `errors`. */
  page(viewport?: { width: number; height: number }): Promise<Page & { errors: string[] }>;
  close(): Promise<void>;
}

/** Headless Chromium on a fresh profile folder, removed on close. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'lmem-chromium-'));
  mkdirSync(screenshotDir, { recursive: true });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: flags,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
  });
  return {
    context,
    async page(viewport) {
      const page = (await context.newPage()) as Page & { errors: string[] };
      page.errors = [];
      page.on('console', (m) => m.type() === 'error' && page.errors.push(`console: ${m.text()}`));
      page.on('pageerror', (e) => page.errors.push(`page: ${e.message}`));
      if (viewport) await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface Served {
  readonly base: string;
  stop(): Promise<void>;
}

/** `lmem serve` on a free port, compiled, as a user starts it (`npm test` builds dist/ first). */
export async function serve(dataDir: string): Promise<Served> {
  const cli = join(process.cwd(), 'dist/src/interfaces/cli/main.cjs');
  const child: ChildProcess = spawn(process.execPath, [cli, 'serve', '--data-dir', dataDir, '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`lmem serve did not start: ${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const address = /"address":\s*"([^"]+)"/.exec(output)?.[1];
      if (address) (clearTimeout(timer), resolve(address));
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.on('exit', (code) => (clearTimeout(timer), reject(new Error(`lmem serve exited ${code}: ${output}`))));
  });
  return {
    base,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Writes a screenshot of the page under test-results/dashboard/. */
export async function shoot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, ...options });
  return path;
}
