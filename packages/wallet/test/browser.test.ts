/**
 * The wallet and its bridge in a real browser (Debian's chromium via playwright-core): the app
 * page holds the wallet; a mini app on another origin, in an iframe, finds it with EIP-6963
 * and asks to add a chain. Skipped when /usr/bin/chromium is missing.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeRpc, startFakeRpc } from './fakeRpc.js';

const CHROMIUM = '/usr/bin/chromium';

type Bundle = Map<string, { code: string; isEntry: boolean }>;

/** Bundles a page for the browser as vite would for the app; chunks by file name. */
async function bundle(entry: string): Promise<Bundle> {
  const result = (await build({
    configFile: false,
    logLevel: 'silent',
    resolve: { conditions: ['source', 'browser', 'import', 'default'] },
    build: {
      write: false,
      minify: false,
      lib: { entry: join(import.meta.dirname, 'browser', entry), formats: ['es'], fileName: 'page' },
      rollupOptions: { external: [/^node:/] },
    },
  })) as unknown as { output: { type: string; code?: string; fileName: string; isEntry?: boolean }[] }[];
  const chunks: Bundle = new Map();
  for (const output of [result].flat()) {
    for (const c of output.output) {
      if (c.type === 'chunk') chunks.set(c.fileName, { code: c.code!, isEntry: !!c.isEntry });
    }
  }
  return chunks;
}

const entryOf = (b: Bundle) => [...b.values()].find((c) => c.isEntry)!.code;

function serve(chunks: Bundle): Promise<{ server: Server; origin: string }> {
  const entry = [...chunks.entries()].find(([, c]) => c.isEntry)![0];
  const server = createServer((req, res) => {
    const name = (req.url ?? '/').split('?')[0].slice(1);
    const chunk = chunks.get(name);
    if (chunk) {
      res.setHeader('content-type', 'text/javascript');
      res.end(chunk.code);
      return;
    }
    res.setHeader('content-type', 'text/html');
    res.end(`<!doctype html><html><body><script type="module" src="/${entry}"></script></body></html>`);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

describe.skipIf(!existsSync(CHROMIUM))('in chromium: a mini app in an iframe uses the wallet', () => {
  let browser: Browser;
  let app: { server: Server; origin: string };
  let mini: { server: Server; origin: string };
  let rpc: FakeRpc;

  beforeAll(async () => {
    const [appJs, miniJs] = [await bundle('appPage.ts'), await bundle('miniPage.ts')];
    // The browser entry never loads a Node module: only the JSON file storage chunk names one.
    expect(entryOf(appJs)).not.toMatch(/from ['"]node:/);
    expect(entryOf(miniJs)).not.toMatch(/node:/);
    app = await serve(appJs);
    mini = await serve(miniJs);
    rpc = await startFakeRpc('0x2a');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
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
    await Promise.all([
      new Promise((r) => app?.server.close(r)),
      new Promise((r) => mini?.server.close(r)),
      rpc?.close(),
    ]);
  });

  it('EIP-6963 discovery, add chain approved (switch + chainChanged), rejected gives 4001', async () => {
    const page = await browser.newPage();
    const miniUrl = `${mini.origin}/?parent=${encodeURIComponent(app.origin)}`;
    await page.goto(`${app.origin}/?mini=${encodeURIComponent(miniUrl)}`);
    await page.waitForFunction(() => (globalThis as any).walletReady === true);
    const frame = await (async () => {
      for (let i = 0; i < 100; i++) {
        const f = page.frames().find((x) => x.url().startsWith(mini.origin));
        if (f && (await f.evaluate(() => typeof (globalThis as any).call === 'function').catch(() => false)))
          return f;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('the mini app did not start');
    })();

    const info = await frame.evaluate(() => {
      const w = globalThis as any;
      return {
        count: w.announced.length,
        info: w.announced[0].info,
        same: w.ethereum === w.announced[0].provider,
      };
    });
    expect(info.count).toBeGreaterThanOrEqual(2);
    expect(info.info).toMatchObject({ name: 'wharf', rdns: 'dev.wharf.wallet' });
    expect(info.same).toBe(true);

    expect(await frame.evaluate(() => (globalThis as any).call('eth_chainId'))).toEqual({ result: '0x7a69' });
    const params = [
      {
        chainId: '0x2a',
        chainName: 'Answer',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: [rpc.url],
      },
    ];

    await page.evaluate(() => {
      (globalThis as any).approveNext = false;
    });
    expect(
      await frame.evaluate((p) => (globalThis as any).call('wallet_addEthereumChain', p), params),
    ).toEqual({
      error: { code: 4001, message: 'User rejected the request' },
    });

    await page.evaluate(() => {
      (globalThis as any).approveNext = true;
    });
    expect(
      await frame.evaluate((p) => (globalThis as any).call('wallet_addEthereumChain', p), params),
    ).toEqual({ result: null });
    expect(await frame.evaluate(() => (globalThis as any).call('eth_chainId'))).toEqual({ result: '0x2a' });
    expect(await frame.evaluate(() => (globalThis as any).events)).toEqual([['chainChanged', '0x2a']]);
    expect(await page.evaluate(() => (globalThis as any).approvals)).toEqual([
      { type: 'addEthereumChain', origin: mini.origin },
      { type: 'addEthereumChain', origin: mini.origin },
    ]);

    // the add persisted in localStorage: a reload of the app still knows the chain
    const stored = await page.evaluate(() => (globalThis as any).localStorage.getItem('wharf-test:chains'));
    expect(JSON.parse(stored)[0].chainId).toBe('0x2a');
    await page.close();
  });
});
