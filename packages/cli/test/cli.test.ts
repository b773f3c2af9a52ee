import { afterEach, describe, expect, it } from 'vitest';
import { type Running, startWharf, stopWharf, tempDir, wharf } from './run-cli.js';

describe('wharf command line', () => {
  it('prints help listing every command', () => {
    const r = wharf(['--help']);
    expect(r.code).toBe(0);
    for (const command of ['up', 'chain', 'serve', 'project', 'app', 'key'])
      expect(r.stdout).toMatch(new RegExp(`\\n  ${command}\\b`));
  });

  it('prints its version', () => {
    const r = wharf(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each([
    [['up', '--port', 'abc'], /--port <port>.*expected a whole number, got "abc"/],
    [['up', '--chain-port', '70000'], /--chain-port <port>.*expected a port 0-65535/],
    [
      ['serve', '--database-url', 'mysql://x'],
      /--database-url <url>.*expected a postgres: or postgresql: URL/,
    ],
    [['chain', 'start', '--block-time', 'soon'], /--block-time <seconds>.*expected seconds/],
    [['chain', 'start', '--balance', '-5'], /--balance <eth>.*expected an amount of ether/],
    [['chain', 'start', '--mnemonic', 'one two'], /--mnemonic <words>.*expected 12 to 24 words/],
    [['up', '--flashblock-interval', '0'], /--flashblock-interval <ms>.*at least 1/],
    [
      ['chain', 'start', '--rpc-send-sync-timeout', '0'],
      /--rpc-send-sync-timeout <seconds>.*expected more than 0 seconds/,
    ],
    [['up', '--rpc-receipt-hold', 'soon'], /--rpc-receipt-hold <seconds>.*expected seconds/],
    [['chain', 'start', '--rpc-threads', 'two'], /--rpc-threads <n>.*expected a whole number/],
    [['up', '--rpc-threads', '1000'], /--rpc-threads <n>.*expected at most 16 threads/],
    [['chain', 'start', '--journal-wait', 'forever'], /--journal-wait <duration>.*expected a duration/],
    [
      ['chain', 'start', '--pool-journal-delay', 'later'],
      /--pool-journal-delay <duration>.*expected a duration/,
    ],
    [
      ['chain', 'start', '--fork-url', 'file:///etc/passwd'],
      /--fork-url <url>.*expected a http: or https: URL/,
    ],
    [['up', '--fork-block-number', '-5'], /--fork-block-number <n>.*expected a whole number/],
    [['chain', 'start', '--fork-timeout', '0ms'], /--fork-timeout <duration>.*at least 1 ms/],
    [
      ['chain', 'follow', '--sequencer', 'http://127.0.0.1:1', '--flashblocks-url', 'http://x'],
      /--flashblocks-url <url>.*expected a ws: or wss: URL/,
    ],
    [
      ['chain', 'follow', '--sequencer', 'http://127.0.0.1:1', '--follow-buffer', '0'],
      /--follow-buffer <n>.*at least 1/,
    ],
    [
      ['chain', 'follow', '--sequencer', 'http://127.0.0.1:1', '--follow-max-message', '1e9'],
      /--follow-max-message <bytes>.*expected a whole number/,
    ],
    [['chain', 'follow', '--sequencer', 'http://127.0.0.1:1', '--follow-poll', '-1'], /--follow-poll <ms>/],
    [['chain', 'start', '--state-cache-memory', '-1'], /--state-cache-memory <MiB>.*expected a whole number/],
    [['up', '--state-cache-memory', '32MB'], /--state-cache-memory <MiB>.*expected a whole number/],
  ])('refuses a bad flag value naming the flag: %j', (args, message) => {
    const r = wharf(args);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
  });

  it('refuses an unknown command and an unknown flag', () => {
    expect(wharf(['launch']).code).not.toBe(0);
    const r = wharf(['up', '--colour', 'red']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unknown option '--colour'/);
  });

  it('takes flag values from WHARF_* environment variables', () => {
    const r = wharf(['up'], { WHARF_PORT: 'not-a-port' });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/not-a-port/);
    const hold = wharf(['chain', 'start'], { WHARF_RPC_RECEIPT_HOLD: '-1' });
    expect(hold.code).not.toBe(0);
    expect(hold.stderr).toMatch(/--rpc-receipt-hold <seconds>.*'-1' from env 'WHARF_RPC_RECEIPT_HOLD'/);
    const help = wharf(['chain', 'start', '--help']);
    expect(help.stdout).toMatch(/--rpc-send-sync-timeout <seconds>[\s\S]*WHARF_RPC_SEND_SYNC_TIMEOUT/);
    expect(help.stdout).toMatch(/--rpc-receipt-hold <seconds>[\s\S]*WHARF_RPC_RECEIPT_HOLD/);
    expect(help.stdout).toMatch(/--rpc-threads <n>[\s\S]*WHARF_RPC_THREADS/);
  });
});

describe('wharf up', () => {
  let running: Running | undefined;
  afterEach(async () => {
    await stopWharf(running);
    running = undefined;
  });

  it('serves /healthz and the app, prints the admin token, and stops with exit code 0 on SIGINT', async () => {
    const dataDir = tempDir();
    const started = Date.now();
    running = await startWharf(
      ['up', '--port', '0', '--chain-port', '0', '--data-dir', dataDir],
      /Press Ctrl-C to stop/,
    );
    const elapsed = Date.now() - started;
    const out = running.stdout();
    const platform = /Platform\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(platform).toBeDefined();
    expect(out).toMatch(/Admin token: [A-Za-z0-9_-]{20,}/);
    expect(elapsed).toBeLessThan(15_000); // generous for a loaded CI machine; the start time is printed and measured in bench/

    const health = await fetch(`${platform}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });

    const page = await fetch(`${platform}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<div id="root">/);

    const missing = await fetch(`${platform}/api/v1/no-such-route`);
    expect(missing.status).toBe(404);

    // The chain node of the same process answers, and the banner lists the funded dev accounts.
    const chain = /Chain RPC\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(chain).toBeDefined();
    const rpc = await fetch(chain!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }),
    });
    expect(await rpc.json()).toEqual({ jsonrpc: '2.0', id: 7, result: '0x7a69' });
    expect(out).toMatch(/\(0\) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266/);

    // The platform tells its app where that chain is, so the browser needs no manual setting.
    const config = await fetch(`${platform}/api/v1/client/config`);
    expect(await config.json()).toEqual({ chainId: 31337, chainRpcUrl: chain });
    expect(out).toMatch(/\(0\) 0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80/);

    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);
    expect(running.stderr()).toMatch(/stopped cleanly/);
  });

  it('stops with exit code 0 on SIGTERM', async () => {
    running = await startWharf(
      ['up', '--port', '0', '--chain-port', '0', '--data-dir', tempDir()],
      /Press Ctrl-C to stop/,
    );
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  });

  it('fails plainly when the platform port is taken', async () => {
    running = await startWharf(
      ['up', '--port', '0', '--chain-port', '0', '--data-dir', tempDir()],
      /Press Ctrl-C to stop/,
    );
    const port = /Platform\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(running.stdout())![1];
    const r = wharf(['serve', '--port', port, '--data-dir', tempDir()]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/EADDRINUSE|address already in use/i);
  });
});

describe("the block being built: Base's shape by default, --pending-nulls for the null one", () => {
  let running: Running | undefined;
  afterEach(async () => {
    await stopWharf(running);
    running = undefined;
  });

  async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(body.error.message);
    return body.result;
  }

  /**
   * Sends a transfer right after a seal; once it is pre-confirmed returns its receipt and the
   * pending block, and the latest head.
   */
  async function whilePreconfirmed(url: string): Promise<{ receipt: any; pending: any; latest: any }> {
    const start = await call(url, 'eth_blockNumber');
    const deadline = Date.now() + 5000;
    while ((await call(url, 'eth_blockNumber')) === start && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const [from] = await call(url, 'eth_accounts');
    const hash = await call(url, 'eth_sendTransaction', [{ from, to: from, value: '0x1' }]);
    let pending: any;
    for (;;) {
      pending = await call(url, 'eth_getBlockByNumber', ['pending', false]);
      if (pending.transactions.includes(hash)) break;
      if (Date.now() > deadline) throw new Error('not pre-confirmed in time');
      await new Promise((r) => setTimeout(r, 20));
    }
    const receipt = await call(url, 'eth_getTransactionReceipt', [hash]);
    const latest = await call(url, 'eth_getBlockByNumber', ['latest', false]);
    // Still before the seal: the answers were about a pre-confirmed transaction.
    expect(await call(url, 'eth_getTransactionByHash', [hash])).toMatchObject({
      blockHash: null,
      blockNumber: pending.number ?? `0x${(BigInt(latest.number) + 1n).toString(16)}`,
    });
    return { receipt, pending, latest };
  }

  const ZERO = `0x${'0'.repeat(64)}`;

  it.each([
    ['chain start (default)', ['chain', 'start', '--port', '0'], {}, false],
    ['chain start --pending-nulls', ['chain', 'start', '--port', '0', '--pending-nulls'], {}, true],
    [
      'up with WHARF_PENDING_NULLS',
      ['up', '--port', '0', '--chain-port', '0'],
      { WHARF_PENDING_NULLS: '1' },
      true,
    ],
    // Deprecated and ignored (decision 0120): the default shape, and a warning naming the flag.
    [
      'chain start --no-preconf-receipts (deprecated)',
      ['chain', 'start', '--port', '0', '--no-preconf-receipts'],
      {},
      false,
    ],
  ] as const)('%s', async (name, args, env, nulls) => {
    running = await startWharf(
      [...args, '--block-time', '2', '--data-dir', tempDir()],
      /Chain RPC\s+http:\/\/\S+/,
      20_000,
      env,
    );
    const url = /Chain RPC\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(running.stdout())![1];
    const { receipt, pending, latest } = await whilePreconfirmed(url);
    const building = `0x${(BigInt(latest.number) + 1n).toString(16)}`;
    expect(pending.parentHash).toBe(latest.hash);
    if (nulls) {
      expect(pending).toMatchObject({ number: null, hash: null });
      expect(receipt).toMatchObject({ blockHash: null, blockNumber: building, status: '0x1' });
    } else {
      expect(pending).toMatchObject({ number: building, hash: ZERO });
      expect(receipt).toMatchObject({ blockHash: ZERO, blockNumber: building, status: '0x1' });
    }
    if (name.includes('deprecated')) expect(running.stderr()).toMatch(/--no-preconf-receipts.*deprecated/);
  });
});

describe('EIP-55 checksums of the printed accounts', () => {
  it('matches the known checksum of the first dev account', async () => {
    const { toChecksumAddress } = await import('../src/checksum.js');
    expect(toChecksumAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
    expect(toChecksumAddress('0x70997970C51812DC3A010C7D01B50E0D17DC79C8')).toBe(
      '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    );
  });
});
