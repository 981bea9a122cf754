import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, serve, shoot, type Browser, type Served } from './support/browser.js';
import { seedDashboardStore, type SeededStore } from './support/dashboard-seed.js';
import { removeDataDir } from './support/engine.js';

// The dashboard as a person uses it: Debian's Chromium against `lmem serve` on a seeded store.
let dir = '';
let seeded: SeededStore;
let server: Served;
let browser: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lmem-dashboard-'));
  seeded = await seedDashboardStore(dir, { graphNodes: 5_100 });
  server = await serve(dir);
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  removeDataDir(dir);
});

// The server shares two cores with other work: answers may take seconds.
const until = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

type TestPage = Page & { errors: string[] };
const open = async (hash: string, viewport?: { width: number; height: number }): Promise<TestPage> => {
  const page = await browser.page(viewport);
  await page.goto(`${server.base}/ui/#/${hash}`);
  return page;
};
const done = async (page: TestPage) => {
  expect(page.errors).toEqual([]);
  await page.close();
};

describe('dashboard in Chromium', () => {
  it('memories: a filtered, keyset-paged table; keyboard reaches every section', async () => {
    const page = await open('memories');
    const requests: string[] = [];
    page.on('request', (r) => r.url().includes('/v1/memories?') && requests.push(r.url()));
    await until(() => page.getByTestId('total').textContent()).toMatch(/^\d+ memories match$/);
    const total = Number((await page.getByTestId('total').textContent())?.split(' ')[0]);
    expect(total).toBeGreaterThan(600);
    expect(await page.locator('table[aria-label="Memories"] tbody tr').count()).toBe(50);
    const first = await page.locator('tbody tr td.text').first().textContent();
    await page.getByRole('button', { name: 'Next page' }).click();
    await until(() => page.getByText('page 2').count()).toBe(1);
    await until(() => page.locator('tbody tr td.text').first().textContent()).not.toBe(first);
    // Every page asked for 50 rows after a cursor: nothing loads the whole store.
    expect(requests.every((u) => new URL(u).searchParams.get('limit') === '50')).toBe(true);
    expect(requests.some((u) => new URL(u).searchParams.has('cursor'))).toBe(true);
    await page.getByLabel('Text contains').fill('kyoto');
    await page.getByLabel('Importance ≥').fill('0.4');
    await page.getByRole('button', { name: 'Apply' }).click();
    await until(() => page.getByTestId('total').textContent()).toBe('2 memories match');
    await shoot(page, 'memories');
    await page.setViewportSize({ width: 420, height: 800 });
    await shoot(page, 'memories-narrow');
    // Keyboard: the skip link first, then the sections; Enter follows a link.
    await page.reload();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Recall debugger');
    await page.keyboard.press('Enter');
    await until(() => page.evaluate('location.hash')).toBe('#/recall');
    await done(page);
  });

  it('memory page: an edit shows up as a new history row', async () => {
    const page = await open(`memories/${seeded.editable}`);
    const rows = page.getByTestId('history').locator('tbody tr');
    await until(() => rows.count()).toBeGreaterThan(0);
    const before = await rows.count();
    await page.getByLabel('Text', { exact: true }).fill('Alice booked the Hotel Sakura in Kyoto for the second week of April');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // The update, then what re-extraction derived from the new text: every row a new event.
    await until(() => page.getByTestId('history').locator('tbody tr', { hasText: 'MemoryUpdated' }).count()).toBe(1);
    expect(await rows.count()).toBeGreaterThan(before);
    expect(await page.getByTestId('history').locator('tbody tr', { hasText: 'MemoryUpdated' }).textContent()).toContain('http:local');
    await until(() => page.getByTestId('memory-text').textContent()).toContain('second week');
    expect(await page.getByRole('heading', { name: 'Graph entries' }).count()).toBe(1);
    await shoot(page, 'memory');
    await done(page);
  });

  it('batch forget: a preview of the chosen memories, then each one forgotten', async () => {
    const page = await open('memories?userId=bob&status=active');
    await until(() => page.getByTestId('total').textContent()).toBe('3 memories match');
    const boxes = page.locator('tbody input[type="checkbox"]');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByRole('button', { name: 'Forget selected (2)' }).click();
    expect(await page.getByTestId('forget-preview').locator('li').count()).toBe(2);
    await page.getByLabel('Reason (recorded in the log)').fill('asked by bob');
    await page.getByRole('button', { name: 'Forget 2' }).click();
    await until(() => page.getByTestId('total').textContent()).toBe('1 memories match');
    await done(page);
  });

  it('recall debugger: ranked results with every score step and the injection under the budget', async () => {
    const page = await open('recall');
    await page.getByLabel('Query', { exact: true }).fill('Which hotel in Kyoto?');
    await page.getByRole('button', { name: 'Recall', exact: true }).click();
    const results = page.getByTestId('recall-results');
    await until(() => results.locator('tbody tr').count()).toBeGreaterThan(0);
    const hotel = results.locator('tbody tr', { hasText: 'Hotel Sakura' });
    expect(await hotel.count()).toBe(1);
    for (const step of ['routes', 'fused', 'weights', 'final']) expect(await hotel.textContent()).toContain(step);
    expect(await page.getByTestId('budget').textContent()).toMatch(/of 6,000 characters/);
    expect(await page.getByTestId('injection').textContent()).toContain('Hotel Sakura');
    await shoot(page, 'recall');
    await done(page);
  });

  it('session replay: the slider moves turn by turn and shows what each turn recalled; time travel and diff', async () => {
    const page = await open('replay');
    await page.getByTestId('sessions').getByRole('link', { name: seeded.sessionId }).click();
    await until(() => page.getByTestId('turn-label').textContent()).toBe(`turn 1 of ${seeded.turns}`);
    const slider = page.getByRole('slider', { name: 'Turn' });
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    await until(() => page.getByTestId('turn-label').textContent()).toBe(`turn 2 of ${seeded.turns}`);
    await until(() => page.getByTestId('turn').textContent()).toContain('How do I get from Tokyo to Kyoto?');
    // The turn's recall, with the recalled memories' text.
    await until(() => page.getByTestId('turn-recall').textContent()).toContain('Shinkansen');
    expect(await page.evaluate('location.hash')).toContain('turn=2');
    await until(() => page.getByTestId('past-summary').textContent()).toMatch(/^\d+ memories at position \d+/);
    await page.getByRole('button', { name: 'Show diff' }).click();
    await until(() => page.getByTestId('diff').locator('li.added').count()).toBeGreaterThan(0);
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot(page, 'replay');
    await done(page);
  });

  it('graph: communities from the server, layout in a worker; 5,000 nodes drawn in under 3 s', async () => {
    const small = await open('graph?sessionId=trip-chat&limit=200');
    await until(() => small.getByTestId('graph-summary').textContent()).toMatch(/communities/);
    await until(() => small.getByTestId('graph-stage').getAttribute('data-layout-done')).toBe('true');
    await small.getByLabel('Find a node', { exact: true }).fill('kyoto');
    await small.getByRole('button', { name: 'Find' }).click();
    expect(await small.getByTestId('node-details').textContent()).toContain('topic');
    await done(small);

    const page = await browser.page();
    // Long tasks on the page's own thread while the graph loads and lays out: how responsive it stays.
    await page.addInitScript(`window.__longTasks = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(e.duration); }).observe({ type: 'longtask', buffered: true });`);
    const stage = page.getByTestId('graph-stage');
    // From the page's navigation start to the first frame with every node drawn, in the browser's clock.
    const load = async () => {
      await page.goto(`${server.base}/ui/#/graph?limit=5000`);
      await until(() => stage.getAttribute('data-drawn-nodes')).toBe('5000');
      return Number(await page.evaluate(`performance.getEntriesByName('graph-drawn')[0].startTime`));
    };
    // Up to three loads, each a full one (the server groups the nodes again every time): the
    // machine is shared, and one load can land on another job's burst.
    const loads = [await load()];
    while ((loads.at(-1) as number) >= 3000 && loads.length < 3) (await page.goto('about:blank'), loads.push(await load()));
    const drawnAt = Math.min(...loads);
    const firstFrame = Number(await stage.getAttribute('data-first-frame-ms'));
    // While the layout still runs in its worker, the page answers a click at once.
    const legend = page.getByRole('region', { name: 'Communities' }).getByRole('button').first();
    const clickedAt = Date.now();
    await legend.click();
    await until(() => legend.getAttribute('aria-pressed')).toBe('true');
    const clickMs = Date.now() - clickedAt;
    const layoutStarted = Date.now();
    await expect.poll(() => stage.getAttribute('data-layout-done'), { timeout: 120_000, interval: 250 }).toBe('true');
    const layoutMs = Date.now() - layoutStarted;
    const longTasks = (await page.evaluate('window.__longTasks')) as number[];
    const summary = await page.getByTestId('graph-summary').textContent();
    process.stdout.write(`\ngraph page, 5,000 nodes: first full frame ${Math.round(drawnAt)} ms after navigation (loads: ${loads.map(Math.round).join(', ')} ms; ` +
      `load average ${loadavg()[0]?.toFixed(1)}) ` +
      `(${firstFrame} ms after the request), click answered in ${clickMs} ms, layout settled ${layoutMs} ms later, longest main-thread task ${Math.round(Math.max(0, ...longTasks))} ms; ${summary}\n`);
    expect(drawnAt).toBeLessThan(3000);
    expect(summary).toMatch(/^5000 of \d+ nodes/);
    await legend.click();
    await page.evaluate('window.scrollTo(0, 0)');
    await shoot(page, 'graph');
    await done(page as TestPage);
  });

  it('compliance: export preview, export, download and verify; erasure with preview and typed confirmation', async () => {
    const page = await open('compliance');
    await page.getByLabel('Id', { exact: true }).first().fill(seeded.erasableUser);
    await page.getByRole('button', { name: 'Preview counts' }).click();
    await until(() => page.getByTestId('export-preview').locator('tr', { hasText: 'memory' }).first().textContent()).toBe('memory2');
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await until(() => page.getByTestId('export-done').count()).toBe(1);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download manifest.json' }).click();
    const manifest = JSON.parse(await (await (await download).createReadStream()).toArray().then((c) => Buffer.concat(c).toString('utf8'))) as { subject: unknown };
    expect(manifest.subject).toEqual({ kind: 'user', id: seeded.erasableUser });
    await page.getByRole('button', { name: 'Verify export' }).click();
    await until(() => page.getByTestId('verify-result').textContent()).toContain('check out');

    const erase = page.getByRole('form', { name: 'Erase subject' });
    await erase.getByLabel('Id', { exact: true }).fill(seeded.erasableUser);
    await page.getByRole('button', { name: 'Preview erasure' }).click();
    await until(() => page.getByTestId('erase-preview').textContent()).toMatch(/\d+ sealed events/);
    await page.getByLabel('Reason (recorded in the log)').fill('right to erasure request 42');
    const button = page.getByRole('button', { name: `Erase user ${seeded.erasableUser}` });
    await page.getByLabel(/^Type "erase user/).fill('erase user someone-else');
    expect(await button.isDisabled()).toBe(true);
    await page.getByLabel(/^Type "erase user/).fill(`erase user ${seeded.erasableUser}`);
    await button.click();
    await until(() => page.getByTestId('erase-done').count()).toBe(1);
    await shoot(page, 'compliance');
    await done(page);
    // Gone from search: neither the memory list nor recall finds the erased text.
    const list = await open(`memories?text=${encodeURIComponent(seeded.erasableText)}`);
    await until(() => list.getByTestId('total').textContent()).toBe('0 memories match');
    await done(list);
  });

  it('status: log head, projections with lag, a rebuild followed live to its end, lifecycle state, a backup taken and listed', async () => {
    const page = await open('status');
    await until(() => page.getByTestId('head').textContent()).toMatch(/^\d+$/);
    expect(await page.getByTestId('projections').locator('tbody tr').count()).toBeGreaterThan(5);
    await page.getByLabel('Target').selectOption('graph');
    await page.getByRole('button', { name: 'Start rebuild' }).click();
    // Rebuilding a 5,000-node graph takes a while on a loaded machine.
    await expect.poll(() => page.getByTestId('rebuild-job').textContent(), { timeout: 120_000, interval: 250 }).toContain('succeeded');
    // The seed archived one memory and ran `lmem tick` the next day: one decay tick, for the first date whose tick hour came after its writes (2026-01-05, as of 03:00 UTC).
    await until(() => page.getByTestId('memories-by-state').locator('tr', { hasText: 'archived' }).textContent()).toBe('archived1');
    expect(await page.getByTestId('atoms-by-state').locator('tr').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('decay').textContent()).toMatch(new RegExp(`^1 decay ticks; the last at #\\d+, for 2026-01-05 \\(appended 2026-01-05 .*\\), affected ${seeded.decayed} \\(rate 0.01\\)`));
    // The compliance erasure above took its managed backup first (ADR 29); a store without any says so.
    const backupRows = page.getByTestId('backups').locator('tbody tr');
    const before = await backupRows.count();
    expect(await page.getByText('No backup recorded in the log.').count()).toBe(before === 0 ? 1 : 0);
    const target = `${dir}-ui-backup.db`;
    await page.getByLabel('Backup file (outside the data dir)').fill(join(dir, 'inside.db'));
    await page.getByRole('button', { name: 'Take backup' }).click();
    await until(() => page.getByRole('alert').textContent()).toContain('data dir');
    await page.getByLabel('Backup file (outside the data dir)').fill(target);
    await page.getByRole('button', { name: 'Take backup' }).click();
    await until(() => backupRows.count()).toBe(before + 1);
    expect(await backupRows.first().textContent()).toContain(target);
    await shoot(page, 'status', { fullPage: true });
    // A console error for the refused backup's 400 is the browser's own network line, not the page's.
    expect(page.errors.filter((e) => !e.includes('400 (Bad Request)'))).toEqual([]);
    await page.close();
    rmSync(target, { force: true });
  });

  it('every page: readable on a narrow window without sideways scrolling, and its main control reached by keyboard with a visible focus ring', async () => {
    const pages: [name: string, hash: string, control: (p: Page) => ReturnType<Page['getByRole']>][] = [
      ['memories', 'memories', (p) => p.getByRole('button', { name: 'Apply' })],
      ['memory', `memories/${seeded.editable}`, (p) => p.getByRole('button', { name: 'Save changes' })],
      ['recall', 'recall', (p) => p.getByLabel('Query', { exact: true })],
      ['replay', `replay/${seeded.sessionId}?turn=1`, (p) => p.getByRole('slider', { name: 'Turn' })],
      ['graph', 'graph?sessionId=trip-chat&limit=200', (p) => p.getByLabel('Find a node', { exact: true })],
      ['compliance', 'compliance', (p) => p.getByRole('button', { name: 'Preview counts' })],
      ['status', 'status', (p) => p.getByRole('button', { name: 'Start rebuild' })],
    ];
    for (const [name, hash, control] of pages) {
      const page = await open(hash, { width: 420, height: 800 });
      const target = control(page);
      await target.waitFor({ timeout: 20_000 });
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      expect({ name, overflow }).toEqual({ name, overflow: 0 });
      await shoot(page, `${name}-narrow`);
      let presses = 0;
      while (!(await target.evaluate((el: any) => el === el.ownerDocument.activeElement)) && presses < 200) (await page.keyboard.press('Tab'), (presses += 1));
      expect({ name, reached: presses < 200 }).toEqual({ name, reached: true });
      expect(await target.evaluate((el: any) => el.ownerDocument.defaultView.getComputedStyle(el).outlineStyle)).toBe('solid');
      if (name === 'recall') {
        // The recall debugger's main action by keyboard alone: type, then Enter.
        await page.keyboard.type('Which hotel in Kyoto?');
        await page.keyboard.press('Enter');
        await until(() => page.getByTestId('recall-results').locator('tbody tr', { hasText: 'Hotel Sakura' }).count()).toBe(1);
      }
      if (name === 'graph') {
        await page.keyboard.type('kyoto');
        await page.keyboard.press('Enter');
        await until(() => page.getByTestId('node-details').textContent()).toContain('kyoto');
      }
      await done(page);
    }
  });
});

