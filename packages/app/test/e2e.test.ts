/**
 * The web app in Debian's chromium (playwright-core; never a downloaded browser) against a real
 * `wharf up`: the operator's dashboard, the live chain view, and the platform app's sign-in,
 * pin and live inbox. Screenshots go to $WHARF_ARTIFACTS_DIR (default: the OS temp directory).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { createWalletClient, defineChain, http } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDist, cliBin, createProject, type RunningWharf, startWharf } from './support/wharf.js';

const chromiumPath = process.env.WHARF_TEST_CHROMIUM ?? '/usr/bin/chromium';
const artifacts = process.env.WHARF_ARTIFACTS_DIR ?? os.tmpdir();
const canRun = fs.existsSync(chromiumPath) && fs.existsSync(cliBin) && fs.existsSync(appDist);
const MNEMONIC = 'test test test test test test test test test test test junk';
const DEV0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const viewports = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };

async function shoot(page: Page, name: string): Promise<void> {
  // A full-page picture would paint the sticky header and the fixed tab bar mid-page: let them
  // sit in the flow for the picture only.
  const flow = await page.addStyleTag({ content: '.topbar, .tabbar { position: static !important; }' });
  await page.screenshot({ path: path.join(artifacts, `wharf-app-${name}.png`), fullPage: true });
  await flow.evaluate((e) => e.remove());
}

describe.skipIf(!canRun)('the web app in chromium against wharf up', () => {
  let wharf: RunningWharf;
  let browser: Browser;
  let project: { projectId: string; apiKey: string };
  const appUrl = 'http://localhost:5555';

  beforeAll(async () => {
    wharf = await startWharf();
    project = await createProject(wharf.dataDir, 'Shop', appUrl);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-quic',
        '--disable-sync',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await wharf?.stop();
  }, 30_000);

  /** A fresh context (its own sessionStorage) pointed at this run's chain RPC. */
  async function open(viewport: keyof typeof viewports): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: viewports[viewport], baseURL: wharf.url });
    if (wharf.rpcUrl)
      await context.addInitScript(
        ([rpc, app]) => {
          const g = globalThis as any;
          if (g.location.origin === app) g.localStorage.setItem('wharf:rpcUrl', rpc);
        },
        [wharf.rpcUrl, new URL(wharf.url).origin] as const,
      );
    const page = await context.newPage();
    return { context, page };
  }

  async function operatorSignIn(page: Page): Promise<void> {
    await page.goto('/dashboard');
    await page.locator('#admin-token').fill(wharf.adminToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
  }

  const send = (apiKey: string, body: Record<string, unknown>) =>
    fetch(`${wharf.url}/api/v1/notifications/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    });

  it('dashboard: the operator creates a project (key shown once), 403 until whitelisted, test send, app URLs, rotation, deletion', async () => {
    const { context, page } = await open('desktop');
    await operatorSignIn(page);
    await page.getByRole('link', { name: 'Shop' }).waitFor();
    await shoot(page, 'dashboard-projects-desktop');

    await page.getByRole('button', { name: 'New project' }).click();
    await page.locator('#project-name').fill('Demo');
    await page.locator('#project-url').fill('http://localhost:5556');
    await page.getByRole('button', { name: 'Create project' }).click();
    const apiKey = (await page.getByTestId('api-key').textContent())?.trim() ?? '';
    expect(apiKey).toMatch(/^wharf_/);
    await page.getByRole('button', { name: 'I saved it' }).click();
    await page.getByRole('heading', { name: 'Demo' }).waitFor();
    await page.getByText('Not whitelisted for notifications.').waitFor();

    const body = { app_url: 'http://localhost:5556', wallet_addresses: [DEV0], title: 'Hi', message: 'Test' };
    expect((await send(apiKey, body)).status).toBe(403);
    await page.getByText('Whitelisted for notifications', { exact: true }).click();
    await page.getByText('Not whitelisted for notifications.').waitFor({ state: 'detached' });
    expect((await send(apiKey, body)).status).toBe(200);

    // The test-send form uses the key this page just issued.
    await page.locator('#send-to').fill(DEV0);
    await page.locator('#send-title').fill('Hello 🚀');
    await page.getByText('7 / 30').waitFor(); // code points, not UTF-16 units
    await page.locator('#send-message').fill('From the dashboard');
    await page.getByRole('button', { name: 'Send test notification' }).click();
    await expect
      .poll(() => page.getByTestId('send-results').textContent())
      .toContain('user has not saved this app');
    // The send log lists it (the operator's test send goes with the key); a row expands to its results.
    const sendLog = page.getByTestId('send-log');
    await sendLog.getByText('Hello 🚀').click();
    await expect
      .poll(() => sendLog.locator('details[open]').textContent())
      .toContain('not sent: user has not saved this app');
    await shoot(page, 'dashboard-project-desktop');
    await page.setViewportSize(viewports.phone);
    await shoot(page, 'dashboard-project-phone');
    await page.setViewportSize(viewports.desktop);

    // App URLs: add one (normalized by the server), remove it.
    await page.getByLabel('New app URL').fill('HTTP://LOCALHOST:5557/');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const removeButton = page.getByRole('button', { name: 'Remove http://localhost:5557' });
    await removeButton.click();
    await removeButton.waitFor({ state: 'detached' });

    // Rotation: the new key works, the old one is refused.
    await page.getByRole('button', { name: 'Generate new key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Generate new key' }).click();
    const rotated = (await page.getByTestId('api-key').textContent())?.trim() ?? '';
    await page.getByRole('button', { name: 'I saved it' }).click();
    expect(rotated).not.toBe(apiKey);
    expect((await send(apiKey, body)).status).toBe(401);
    expect((await send(rotated, body)).status).toBe(200);

    // Deleting the project: its key answers 404 from that moment on.
    await page.getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    expect((await send(rotated, body)).status).toBe(404);
    await context.close();
  }, 60_000);

  it('dashboard: a developer signs in with their wallet, creates a project and its key; 403 until the operator whitelists', async () => {
    const { context, page } = await open('desktop');
    await page.goto('/dashboard');
    await page.getByTestId('sign-in-dev-2').click();
    await page.getByRole('heading', { name: 'Projects', exact: true }).waitFor();
    await page.getByText('No projects yet').waitFor(); // only their own projects, none yet
    await shoot(page, 'dashboard-developer-empty-desktop');

    await page.getByRole('button', { name: 'New project' }).first().click();
    await page.locator('#project-name').fill('Dev app');
    await page.locator('#project-url').fill('http://localhost:5558');
    await page.getByRole('button', { name: 'Create project' }).click();
    const apiKey = (await page.getByTestId('api-key').textContent())?.trim() ?? '';
    await page.getByRole('button', { name: 'I saved it' }).click();
    await page.getByRole('heading', { name: 'Dev app' }).waitFor();
    const projectUrl = new URL(page.url()).pathname;

    const body = { app_url: 'http://localhost:5558', wallet_addresses: [DEV0], title: 'Hi', message: 'Dev' };
    expect((await send(apiKey, body)).status).toBe(403);
    // The dashboard's own test send (the session, no key) is refused the same way.
    await page.locator('#send-to').fill(DEV0);
    await page.locator('#send-title').fill('Hello');
    await page.locator('#send-message').fill('From my dashboard');
    await page.getByRole('button', { name: 'Send test notification' }).click();
    await page.getByText('The send was refused').waitFor();

    // The operator whitelists it from their own session.
    const operator = await open('desktop');
    await operatorSignIn(operator.page);
    await operator.page.goto(projectUrl);
    await operator.page.getByText('Whitelisted for notifications', { exact: true }).click();
    await operator.page.getByText('Not whitelisted for notifications.').waitFor({ state: 'detached' });
    await operator.context.close();
    expect((await send(apiKey, body)).status).toBe(200);

    await page.reload();
    await page.getByRole('heading', { name: 'Dev app' }).waitFor();
    await page.locator('#send-to').fill(DEV0);
    await page.locator('#send-title').fill('Hello again');
    await page.locator('#send-message').fill('From my dashboard');
    await page.getByRole('button', { name: 'Send test notification' }).click();
    await expect
      .poll(() => page.getByTestId('send-results').textContent())
      .toContain('user has not saved this app');
    await page.getByText('No users yet').waitFor();
    await shoot(page, 'dashboard-developer-project-desktop');
    await context.close();
  }, 90_000);

  it('dashboard: the chain view fills flashblock by flashblock', async (ctx) => {
    if (!wharf.rpcUrl) ctx.skip();
    const { context, page } = await open('desktop');
    await operatorSignIn(page);
    await page.getByRole('link', { name: 'Chain' }).click();
    await page.getByRole('heading', { name: /being built/ }).waitFor();

    // Traffic: 30 transfers from dev account 8, a few per flashblock.
    const chain = defineChain({
      id: 31337,
      name: 'wharf',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [wharf.rpcUrl!] } },
    });
    const account = mnemonicToAccount(MNEMONIC, { addressIndex: 8 });
    const client = createWalletClient({ account, chain, transport: http(wharf.rpcUrl) });
    for (let i = 0; i < 30; i++) {
      await client.sendTransaction({ to: DEV0, value: 1n });
      await new Promise((r) => setTimeout(r, 40));
    }
    for (let i = 0; i < 3; i++) {
      await page.getByRole('button', { name: 'Send probe' }).click();
      await expect.poll(() => page.locator('.latency-bars > div').count(), { timeout: 5000 }).toBe(i + 1);
    }
    expect(await page.getByTestId('latency-last').textContent()).toMatch(/^\d+ ms$/);
    // Keep transactions flowing while the picture is taken, so the slots show them arriving.
    let flowing = true;
    const flow = (async () => {
      while (flowing) {
        await client.sendTransaction({ to: DEV0, value: 1n });
        await new Promise((r) => setTimeout(r, 60));
      }
    })();
    const filledSlots = () =>
      page
        .locator('.flash-slot')
        .evaluateAll((els) => els.filter((e) => Number(e.getAttribute('data-txs')) > 0).length);
    await expect.poll(filledSlots, { timeout: 5000 }).toBeGreaterThan(1);
    await shoot(page, 'dashboard-chain-desktop');
    await page.setViewportSize(viewports.phone);
    await shoot(page, 'dashboard-chain-phone');
    flowing = false;
    await flow;
    await context.close();
  }, 60_000);

  it('platform: sign in, pin, a sent notification appears live with the unread badge, tapping opens the app', async (ctx) => {
    const probe = await fetch(`${wharf.url}/api/v1/client/auth/nonce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    // The client API lands with issue 7; until then this part cannot run.
    if (probe.status === 404) ctx.skip();

    const { context, page } = await open('desktop');
    await page.goto('/');
    await shoot(page, 'signin-desktop');
    await page.getByTestId('sign-in-dev-0').click();
    await page.getByRole('heading', { name: 'My apps' }).waitFor();

    await page.getByRole('link', { name: 'Discover' }).first().click();
    const card = page.getByTestId('catalog-app').filter({ hasText: appUrl });
    await card.getByRole('button', { name: 'Pin' }).click();
    await page.getByRole('button', { name: 'Pin app' }).click();
    await card.getByText('Pinned').waitFor();

    await page.getByRole('link', { name: 'Inbox' }).first().click();
    await expect.poll(() => page.getByTestId('stream-state').textContent(), { timeout: 5000 }).toBe('Live');
    const sent = Date.now();
    const response = await send(project.apiKey, {
      app_url: appUrl,
      wallet_addresses: [DEV0],
      title: 'Order shipped',
      message: 'Your order #7 is on its way.',
      target_path: '/orders/7',
    });
    expect(response.status).toBe(200);
    // Issue 7: the notification appears in the open page within 1 s of the developer's send.
    await page.getByText('Order shipped').waitFor({ timeout: 1000 });
    expect(Date.now() - sent).toBeLessThan(1000);
    await expect.poll(() => page.getByTestId('unread-badge').first().textContent()).toContain('1');
    await shoot(page, 'inbox-desktop');
    await page.setViewportSize(viewports.phone);
    await shoot(page, 'inbox-phone');

    await page.getByTestId('notification').first().click();
    await page.waitForURL(/\/open\?url=/);
    expect(decodeURIComponent(new URL(page.url()).searchParams.get('url') ?? '')).toBe(`${appUrl}/orders/7`);
    expect(await page.getByTestId('miniapp-frame').getAttribute('src')).toBe(`${appUrl}/orders/7`);
    // Opening it marked it read: the badge is gone, and the server agrees.
    await page.getByTestId('unread-badge').first().waitFor({ state: 'detached' });

    // Notifications off, then unpin, from My apps: the developer API sees each change at once.
    const failureOf = async () => {
      const r = await send(project.apiKey, {
        app_url: appUrl,
        wallet_addresses: [DEV0],
        title: `Check ${Math.random().toString(36).slice(2, 8)}`,
        message: 'state',
      });
      return ((await r.json()) as { results: { failureReason?: string }[] }).results[0].failureReason;
    };
    await page.getByRole('link', { name: 'My apps' }).first().click();
    const pinnedCard = page.getByTestId('pinned-app').filter({ hasText: 'localhost:5555' });
    await pinnedCard.getByText('Notifications', { exact: true }).click();
    await page.getByText('Notifications off for Shop').waitFor();
    expect(await failureOf()).toBe('user has notifications disabled');
    await pinnedCard.getByRole('button', { name: 'Unpin' }).click();
    await pinnedCard.waitFor({ state: 'detached' });
    expect(await failureOf()).toBe('user has not saved this app');
    await context.close();
  }, 60_000);

  it('wallet: a transfer shows in the pending balance within a flashblock', async (ctx) => {
    const probe = await fetch(`${wharf.url}/api/v1/client/auth/nonce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    if (probe.status === 404 || !wharf.rpcUrl) ctx.skip();
    const { context, page } = await open('desktop');
    await page.goto('/wallet');
    await page.getByTestId('sign-in-dev-1').click();
    const balance = page.getByTestId('balance').first();
    await expect.poll(() => balance.textContent(), { timeout: 5000 }).toContain('ETH');
    const before = await balance.textContent();
    await page.locator('#transfer-amount').fill('2.5');
    await page.getByRole('button', { name: /^Send 2.5 ETH/ }).click();
    await page.getByText(/Pre-confirmed \d+ ms after submit/).waitFor({ timeout: 3000 });
    await expect.poll(() => balance.textContent(), { timeout: 1000 }).not.toBe(before ?? '');
    await shoot(page, 'wallet-desktop');
    await page.setViewportSize(viewports.phone);
    await shoot(page, 'wallet-phone');
    await context.close();
  }, 60_000);
});
