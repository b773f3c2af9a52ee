/**
 * The example mini app, end to end as a developer runs it: `wharf up`, then the example's server
 * (`npm run example`), which registers itself with the platform on first run. In chromium, inside
 * the platform app's frame: find the wallet, connect, send a transfer and see it pre-confirmed,
 * sign in with SIWE; pin the app, the example's back end receives the verified miniapp_added
 * webhook; its "Notify users" button sends a notification that appears live in the platform app.
 * Screenshots go to $WHARF_ARTIFACTS_DIR, or to examples/mini-app/screenshots with
 * EXAMPLE_SCREENSHOTS=1 (how the README's pictures are made).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appDist,
  cliBin,
  type RunningWharf,
  repoRoot,
  startWharf,
} from '../../../packages/app/test/support/wharf.js';

const chromiumPath = process.env.WHARF_TEST_CHROMIUM ?? '';
const exampleDir = path.join(repoRoot, 'examples/mini-app');
const shots =
  process.env.EXAMPLE_SCREENSHOTS === '1'
    ? path.join(exampleDir, 'screenshots')
    : (process.env.WHARF_ARTIFACTS_DIR ?? os.tmpdir());
const canRun =
  chromiumPath !== '' && fs.existsSync(chromiumPath) && fs.existsSync(cliBin) && fs.existsSync(appDist);
const DEV0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

interface RunningExample {
  url: string;
  envFile: string;
  output(): string;
  stop(): Promise<void>;
}

/** `node examples/mini-app/server.mjs` (what `npm run example` runs) against this run's platform. */
async function startExample(wharf: RunningWharf): Promise<RunningExample> {
  const envFile = path.join(wharf.dataDir, 'example.env');
  const child: ChildProcess = spawn(process.execPath, [path.join(exampleDir, 'server.mjs')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      EXAMPLE_PORT: '0',
      EXAMPLE_ENV_FILE: envFile,
      WHARF_URL: wharf.url,
      WHARF_DATA_DIR: wharf.dataDir,
    },
  });
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 90_000;
  const urlOf = () => /Example mini app\s+(http:\/\/\S+)/.exec(out)?.[1];
  while (!urlOf()) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the example did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: urlOf()!,
    envFile,
    output: () => out,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

describe.skipIf(!canRun)('the example mini app inside the platform app', () => {
  let wharf: RunningWharf;
  let example: RunningExample;
  let browser: Browser;

  beforeAll(async () => {
    wharf = await startWharf();
    [example, browser] = await Promise.all([
      startExample(wharf),
      chromium.launch({
        executablePath: chromiumPath,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--no-first-run',
        ],
      }),
    ]);
  }, 150_000);

  afterAll(async () => {
    await browser?.close();
    await example?.stop();
    await wharf?.stop();
  }, 30_000);

  /** Approves the wallet's dialog in the platform app. */
  async function approve(page: Page): Promise<void> {
    await page.getByTestId('approval-origin').waitFor();
    expect(await page.getByTestId('approval-origin').textContent()).toBe(example.url);
    await page.getByRole('dialog').getByRole('button').last().click();
  }

  /** Opens the example in the platform's frame and waits until it found the wallet. */
  async function openExample(page: Page): Promise<Frame> {
    await page.goto(`/open?url=${encodeURIComponent(`${example.url}/`)}`);
    await expect
      .poll(() => page.frames().some((f) => f.url().startsWith(example.url)), { timeout: 5000 })
      .toBe(true);
    const frame = page.frames().find((f) => f.url().startsWith(example.url))!;
    await expect
      .poll(() => frame.getByTestId('wallet-found').textContent(), { timeout: 5000 })
      .toBe('Wallet: wharf (via EIP-6963)');
    return frame;
  }

  /** Connect (the platform asks the first time only) and sign in to the example's back end. */
  async function connectAndSignIn(page: Page, frame: Frame, firstTime: boolean): Promise<void> {
    await frame.getByRole('button', { name: 'Connect' }).click();
    if (firstTime) await approve(page);
    await expect.poll(() => frame.getByTestId('address').textContent()).toBe(DEV0);
    await frame.getByRole('button', { name: 'Sign in with Ethereum' }).click();
    await approve(page);
    await expect.poll(() => frame.getByTestId('session').textContent()).toBe(`Signed in as ${DEV0}`);
  }

  const events = async (): Promise<{ event: string; walletAddress: string }[]> =>
    ((await (await fetch(`${example.url}/api/events`)).json()) as { events: [] }).events;

  it('connects, sends pre-confirmed, signs in, gets the pin webhook and notifies the inbox live', async () => {
    // First run: the example registered a whitelisted project and its webhook, kept in its .env.
    const env = fs.readFileSync(example.envFile, 'utf8');
    expect(env).toMatch(/^WHARF_API_KEY=\S+$/m);
    expect(env).toMatch(/^WHARF_WEBHOOK_SECRET=\S+$/m);
    expect(env).toContain(`EXAMPLE_APP_URL=${example.url}`);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, baseURL: wharf.url });
    await context.addInitScript(
      ([rpc, app]) => {
        const g = globalThis as any;
        if (g.location.origin === app) g.localStorage.setItem('wharf:rpcUrl', rpc);
      },
      [wharf.rpcUrl!, new URL(wharf.url).origin] as const,
    );
    const page = await context.newPage();
    // The platform's pages carry their Content-Security-Policy: the example must work under it.
    const csp = (await page.goto('/'))?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain('frame-src http: https:');
    await page.getByTestId('sign-in-dev-0').click();
    await page.getByRole('heading', { name: 'My apps' }).waitFor();

    let frame = await openExample(page);
    await connectAndSignIn(page, frame, true);
    const balanceText = async () => Number((await frame.getByTestId('balance').textContent())?.split(' ')[0]);
    await expect.poll(balanceText).toBeGreaterThan(0);
    const before = await balanceText();

    await frame.getByRole('button', { name: 'Send' }).click();
    await approve(page);
    await expect
      .poll(() => frame.getByTestId('send-result').textContent(), { timeout: 10_000 })
      .toMatch(/^Pre-confirmed in \d+ ms \(success, block \d+\)$/);
    const ms = Number(/in (\d+) ms/.exec((await frame.getByTestId('send-result').textContent()) ?? '')?.[1]);
    console.log(`example: submit to receipt ${ms} ms`);
    // 200 ms flashblocks: a receipt within one to two flashblocks, with room for a loaded machine.
    expect(ms).toBeLessThan(1000);
    await expect.poll(balanceText).toBeLessThanOrEqual(before - 0.01);
    await page.screenshot({ path: path.join(shots, 'example-in-wharf.png') });

    // Pin it from Discover: the platform posts miniapp_added to the example's back end.
    expect(await events()).toEqual([]);
    await page.getByRole('link', { name: 'Discover' }).first().click();
    const card = page.getByTestId('catalog-app').filter({ hasText: example.url.replace('http://', '') });
    await card.getByRole('button', { name: 'Pin' }).click();
    await page.getByRole('button', { name: 'Pin app' }).click();
    await card.getByText('Pinned').waitFor();
    await expect
      .poll(events, { timeout: 15_000 })
      .toEqual([expect.objectContaining({ event: 'miniapp_added', walletAddress: DEV0 })]);

    // A forged event is refused and not recorded.
    const forged = await fetch(`${example.url}/api/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-wharf-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
      },
      body: JSON.stringify({ id: 'forged', event: 'miniapp_removed', walletAddress: DEV0 }),
    });
    expect(forged.status).toBe(401);
    expect(await events()).toHaveLength(1);

    // Back in the example: its users list has the wallet; its button notifies; the platform's
    // inbox shows it live (the unread badge, without a reload), then in the list.
    frame = await openExample(page);
    await connectAndSignIn(page, frame, false);
    await frame
      .getByTestId('events')
      .getByText(/^miniapp_added/)
      .waitFor();
    await frame.getByRole('button', { name: 'List users' }).click();
    await expect.poll(() => frame.getByTestId('users').textContent()).toContain(DEV0);
    await frame.locator('#title').fill('Hello from the example');
    await frame.getByRole('button', { name: 'Notify users' }).click();
    await expect.poll(() => frame.getByTestId('notify-result').textContent()).toBe('Sent to 1, failed 0');
    await expect
      .poll(() => page.getByTestId('unread-badge').first().textContent(), { timeout: 5000 })
      .toContain('1');
    await page.screenshot({ path: path.join(shots, 'example-notified.png') });
    await page.getByRole('link', { name: 'Inbox' }).first().click();
    await page.getByText('Hello from the example').first().waitFor({ timeout: 5000 });
    await page.screenshot({ path: path.join(shots, 'example-inbox.png') });
    await context.close();
  }, 120_000);

  it('opened on its own, without a wallet extension, says that no wallet was found', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${example.url}/`);
    await expect
      .poll(() => page.getByTestId('wallet-found').textContent(), { timeout: 5000 })
      .toMatch(/^No wallet found/);
    expect(await page.getByRole('button', { name: 'Connect' }).isDisabled()).toBe(true);
    await context.close();
  });
});
