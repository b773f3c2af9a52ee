/**
 * A mini app on another origin, framed by the platform app in chromium, reaches the wallet through
 * the postMessage bridge: the approval dialog names the mini app's origin; approve connects, adds
 * a chain (a second real node) and switches to it; reject answers 4001 and changes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, chromium, type Frame, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appDist, cliBin, type RunningWharf, startChain, startWharf } from './support/wharf.js';

const chromiumPath = process.env.WHARF_TEST_CHROMIUM ?? '/usr/bin/chromium';
const artifacts = process.env.WHARF_ARTIFACTS_DIR ?? os.tmpdir();
const canRun = fs.existsSync(chromiumPath) && fs.existsSync(cliBin) && fs.existsSync(appDist);

/** Bundles the mini app page as one ES module and serves it on its own origin. */
async function serveMiniApp(): Promise<{ server: Server; origin: string }> {
  const output = (await build({
    configFile: false,
    logLevel: 'silent',
    resolve: { conditions: ['source', 'browser', 'import', 'default'] },
    build: {
      write: false,
      minify: false,
      lib: { entry: path.join(import.meta.dirname, 'support/miniApp.ts'), formats: ['es'], fileName: 'mini' },
      rollupOptions: { external: [/^node:/] },
    },
  })) as unknown as { output: { type: string; code?: string; fileName: string; isEntry?: boolean }[] }[];
  const chunks = new Map<string, string>();
  let entry = '';
  for (const o of [output].flat())
    for (const c of o.output)
      if (c.type === 'chunk') {
        chunks.set(c.fileName, c.code ?? '');
        if (c.isEntry) entry = c.fileName;
      }
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').split('?')[0].slice(1);
    const code = chunks.get(name);
    res.setHeader('content-type', code === undefined ? 'text/html' : 'text/javascript');
    res.end(
      code ?? `<!doctype html><html><body><script type="module" src="/${entry}"></script></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://localhost:${(server.address() as AddressInfo).port}` };
}

describe.skipIf(!canRun)('a mini app in a frame uses the wallet through the bridge', () => {
  let wharf: RunningWharf;
  let browser: Browser;
  let mini: { server: Server; origin: string };

  beforeAll(async () => {
    [wharf, mini] = await Promise.all([startWharf(), serveMiniApp()]);
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--no-first-run',
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    mini?.server.close();
    await wharf?.stop();
  }, 30_000);

  /**
   * `promise`, or a failure naming `what` after `ms`: an answer that never comes fails the step
   * that waited for it, not the whole test at its timeout with no word of where it stopped.
   */
  function within<T>(promise: Promise<T>, what: string, ms = 20_000): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    });
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  async function ask(
    frame: Frame,
    page: Page,
    method: string,
    params: unknown,
    answer: 'approve' | 'reject',
    screenshot?: string,
  ) {
    const pending = frame.evaluate(([m, p]) => (globalThis as any).ask(m, p), [method, params] as const);
    await page.getByTestId('approval-origin').waitFor();
    expect(await page.getByTestId('approval-origin').textContent()).toBe(mini.origin);
    const dialog = page.getByRole('dialog');
    if (screenshot) {
      await page.waitForTimeout(300); // let the dialog finish rising in
      await page.screenshot({ path: path.join(artifacts, screenshot) });
    }
    if (answer === 'reject') await dialog.getByRole('button', { name: 'Reject' }).click();
    else await dialog.getByRole('button').last().click();
    return within(pending, `the mini app's ${method} after ${answer}`);
  }

  it('asks in a dialog naming the origin; approve works, reject is 4001', async (ctx) => {
    const probe = await fetch(`${wharf.url}/api/v1/client/auth/nonce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    if (probe.status === 404 || !wharf.rpcUrl) ctx.skip(); // the client API lands with issue 7

    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: wharf.url });
    // Point the platform app (not the mini app) at this run's chain.
    await context.addInitScript(
      ([rpc, app]) => {
        const g = globalThis as any;
        if (g.location.origin === app) g.localStorage.setItem('wharf:rpcUrl', rpc);
      },
      [wharf.rpcUrl!, new URL(wharf.url).origin] as const,
    );
    const page = await context.newPage();
    // Where a failed run stopped, for the artifacts.
    ctx.onTestFailed(async () => {
      await page.screenshot({ path: path.join(artifacts, 'wharf-app-miniapp-failed.png') }).catch(() => {});
    });
    await page.goto('/');
    await page.getByTestId('sign-in-dev-0').click();
    await page.getByRole('heading', { name: 'My apps' }).waitFor();
    await page.goto(`/open?url=${encodeURIComponent(`${mini.origin}/`)}`);
    await expect
      .poll(() => page.frames().some((f) => f.url().startsWith(mini.origin)), { timeout: 5000 })
      .toBe(true);
    const frame = page.frames().find((f) => f.url().startsWith(mini.origin))!;
    await frame.waitForFunction(() => (globalThis as any).miniReady === true);

    expect(await ask(frame, page, 'eth_requestAccounts', undefined, 'reject')).toMatchObject({
      error: { code: 4001 },
    });
    expect(await ask(frame, page, 'eth_requestAccounts', undefined, 'approve')).toEqual({
      result: ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'],
    });

    const chain = {
      chainId: '0x7a69',
      chainName: 'wharf via localhost',
      rpcUrls: [wharf.rpcUrl!.replace('127.0.0.1', 'localhost')],
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    };
    expect(
      await ask(frame, page, 'wallet_addEthereumChain', [chain], 'approve', 'wharf-app-approval-desktop.png'),
    ).toEqual({ result: null });
    const chainId = () =>
      within(
        frame.evaluate(() => (globalThis as any).ask('eth_chainId')),
        "the mini app's eth_chainId",
      );
    expect(await chainId()).toEqual({ result: '0x7a69' });

    // A new chain (a second node, chain id 31338): no is 4001 and nothing changes; yes adds it and
    // switches the mini app to it; switching back asks again.
    const second = await startChain(31338);
    try {
      const other = {
        chainId: '0x7a6a',
        chainName: 'Second chain',
        rpcUrls: [second.rpcUrl],
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      };
      expect(await ask(frame, page, 'wallet_addEthereumChain', [other], 'reject')).toMatchObject({
        error: { code: 4001 },
      });
      expect(await chainId()).toEqual({ result: '0x7a69' });
      expect(await ask(frame, page, 'wallet_addEthereumChain', [other], 'approve')).toEqual({ result: null });
      expect(await chainId()).toEqual({ result: '0x7a6a' });
      // Switching to a known chain may or may not ask (wallet policy): approve if it does.
      const switching = frame.evaluate(() =>
        (globalThis as any).ask('wallet_switchEthereumChain', [{ chainId: '0x7a69' }]),
      );
      const asked = await page
        .getByTestId('approval-origin')
        .waitFor({ timeout: 1500 })
        .then(
          () => true,
          () => false,
        );
      if (asked) await page.getByRole('dialog').getByRole('button').last().click();
      expect(await within(switching, "the mini app's wallet_switchEthereumChain")).toEqual({ result: null });
      expect(await chainId()).toEqual({ result: '0x7a69' });
    } finally {
      await second.stop();
    }
    await page.screenshot({
      path: path.join(process.env.WHARF_ARTIFACTS_DIR ?? '/tmp', 'wharf-app-miniapp-desktop.png'),
    });
    await context.close();
  }, 60_000);
});
