/**
 * The API reference at /api/docs in Debian's chromium against a real `wharf up`: the page renders
 * the OpenAPI document under its own Content-Security-Policy (no violation), and "Try it out"
 * with an API key entered under "Authorize" calls the developer API and shows its answer.
 * The dashboard links to it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDist, cliBin, createProject, type RunningWharf, startWharf } from './support/wharf.js';

const chromiumPath = process.env.WHARF_TEST_CHROMIUM ?? '/usr/bin/chromium';
const artifacts = process.env.WHARF_ARTIFACTS_DIR ?? os.tmpdir();
const canRun = fs.existsSync(chromiumPath) && fs.existsSync(cliBin) && fs.existsSync(appDist);

describe.skipIf(!canRun)('/api/docs in chromium', () => {
  let wharf: RunningWharf;
  let browser: Browser;
  let apiKey: string;
  const appUrl = 'http://localhost:5599';

  beforeAll(async () => {
    wharf = await startWharf();
    ({ apiKey } = await createProject(wharf.dataDir, 'Docs', appUrl));
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wharf?.stop();
  }, 30_000);

  it('renders the API and "Try it out" answers with the API key entered under Authorize', async () => {
    const context = await browser.newContext({ baseURL: wharf.url, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      await page.goto('/api/docs');
      await page.getByText('wharf notifications API').first().waitFor();
      const users = page.locator('.opblock', {
        has: page.locator('.opblock-summary-path', { hasText: /^\/api\/v1\/notifications\/app\/users$/ }),
      });
      await users.waitFor();

      await page.locator('.btn.authorize').first().click();
      const dialog = page.locator('.dialog-ux');
      const keyScheme = dialog.locator('.auth-container', { hasText: 'x-api-key' });
      await keyScheme.locator('input').fill(apiKey);
      await keyScheme.locator('button.authorize').click();
      await keyScheme.locator('button.btn-done').click();

      await users.locator('.opblock-summary').click();
      await users.locator('tr[data-param-name="app_url"] input').fill(appUrl);
      await users.locator('button.execute').click();
      const status = users.locator('.live-responses-table tr.response .response-col_status').first();
      await status.waitFor();
      expect((await status.textContent())?.trim()).toBe('200');
      // The request it shows carried the key.
      expect(await users.locator('.curl-command').textContent()).toContain(`x-api-key: ${apiKey}`);
      await expect
        .poll(
          async () => (await users.locator('.live-responses-table .microlight').first().textContent()) ?? '',
        )
        .toMatch(/"success":\s*true/);
      await page.screenshot({ path: path.join(artifacts, 'wharf-api-docs.png'), fullPage: false });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the dashboard links to it', async () => {
    const context = await browser.newContext({ baseURL: wharf.url });
    const page = await context.newPage();
    try {
      await page.goto('/dashboard');
      await page.locator('#admin-token').fill(wharf.adminToken);
      await page.getByRole('button', { name: 'Sign in as operator' }).click();
      const link = page.getByRole('link', { name: 'API docs' });
      expect(await link.getAttribute('href')).toBe('/api/docs');
    } finally {
      await context.close();
    }
  });
});
