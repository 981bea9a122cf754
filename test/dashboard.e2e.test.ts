import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, serve, shoot, type Browser, type Served } from './support/browser.js';
import { seedDashboardStore, type SeededStore } from './support/dashboard-seed.js';

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
  rmSync(dir, { recursive: true, force: true });
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
});
