/**
 * State files (Anvil's JSON) and the in-memory mode: a chain of 10,000 accounts dumped with
 * anvil_dumpState loads back with anvil_loadState to the same state root (its time: the bench);
 * --load-state / --dump-state (the node options) round-trip; --ephemeral writes nothing to disk;
 * --no-dev-methods turns the test methods off.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { rpc, startTestNode, type TestNode, tempDir } from './node-helpers.js';

const ACCOUNTS = 10_000;
const nodes: TestNode[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});

/** A world of `n` accounts; every tenth holds code and two storage slots. */
function world(n: number) {
  const accounts: Record<string, unknown> = {};
  for (let i = 1; i <= n; i++) {
    const address = `0x${(0x5000000 + i).toString(16).padStart(40, '0')}`;
    accounts[address] =
      i % 10 === 0
        ? {
            nonce: 1,
            balance: `0x${(BigInt(i) * 10n ** 15n).toString(16)}`,
            code: '0x6001600055',
            storage: { '0x0': `0x${i.toString(16)}`, '0x1': '0x2a' },
          }
        : { nonce: i % 7, balance: `0x${(BigInt(i) * 10n ** 12n).toString(16)}`, code: '0x', storage: {} };
  }
  return { accounts };
}

describe('state files', () => {
  it(`anvil_dumpState of ${ACCOUNTS.toLocaleString('en')} accounts loads back with the same state root`, async () => {
    const a = await startTestNode({ blockTime: 0, ephemeral: true });
    nodes.push(a);
    await rpc(a.url, 'anvil_loadState', [world(ACCOUNTS)]);
    const aBlock = await rpc(a.url, 'eth_getBlockByNumber', ['latest', false]);
    const dumped: string = await rpc(a.url, 'anvil_dumpState', []);
    const b = await startTestNode({ blockTime: 0, ephemeral: true });
    nodes.push(b);
    const from = performance.now();
    expect(await rpc(b.url, 'anvil_loadState', [dumped])).toBe(true);
    const ms = performance.now() - from;
    const bBlock = await rpc(b.url, 'eth_getBlockByNumber', ['latest', false]);
    expect(bBlock.stateRoot).toBe(aBlock.stateRoot);
    const probe = `0x${(0x5000000 + 4210).toString(16).padStart(40, '0')}`;
    expect(await rpc(b.url, 'eth_getStorageAt', [probe, '0x0', 'latest'])).toBe(
      `0x${(4210).toString(16).padStart(64, '0')}`,
    );
    expect(await rpc(b.url, 'eth_getCode', [probe, 'pending'])).toBe('0x6001600055');
    // The time is not asserted (a shared machine swings 2x): `node bench/state-load.mjs` prints
    // it next to Anvil's; figures in docs/perf/2026-11-27-state-files.md.
    console.log(
      `anvil_loadState of ${ACCOUNTS} accounts (${(dumped.length / 2 / 1024).toFixed(0)} KiB gzipped): ${ms.toFixed(0)} ms`,
    );
  }, 120_000);

  it('--load-state / --dump-state round-trip, and a bad file stops the start naming what is wrong', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'state.json');
    fs.writeFileSync(file, JSON.stringify(world(50)));
    const a = await startTestNode({ blockTime: 0, loadState: file, dumpState: path.join(dir, 'out.json') });
    const who = `0x${(0x5000000 + 20).toString(16).padStart(40, '0')}`;
    expect(await rpc(a.url, 'eth_getBalance', [who, 'latest'])).toBe(`0x${(20n * 10n ** 15n).toString(16)}`);
    await rpc(a.url, 'anvil_setBalance', [who, '0x7']);
    const root = (await rpc(a.url, 'eth_getBlockByNumber', ['latest', false])).stateRoot;
    await a.stop();
    const out = JSON.parse(fs.readFileSync(path.join(dir, 'out.json'), 'utf8'));
    expect(out.accounts[who]).toMatchObject({ balance: '0x7', nonce: 1, code: '0x6001600055' });
    expect(Object.keys(out)).toEqual(['block', 'accounts', 'best_block_number', 'blocks', 'transactions']);
    const b = await startTestNode({ blockTime: 0, ephemeral: true, loadState: path.join(dir, 'out.json') });
    nodes.push(b);
    expect((await rpc(b.url, 'eth_getBlockByNumber', ['latest', false])).stateRoot).toBe(root);

    fs.writeFileSync(file, JSON.stringify({ accounts: { '0x12': {} } }));
    await expect(startTestNode({ blockTime: 0, ephemeral: true, loadState: file })).rejects.toThrow(
      /state file .*"0x12" is not an address/,
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('--ephemeral keeps nothing on disk', async () => {
    const dir = tempDir();
    const n = await startTestNode({ blockTime: 0, ephemeral: true, dataDir: dir });
    await rpc(n.url, 'anvil_setBalance', ['0x00000000000000000000000000000000000e0001', '0x5']);
    expect(await rpc(n.url, 'eth_getBalance', ['0x00000000000000000000000000000000000e0001', 'latest'])).toBe(
      '0x5',
    );
    await n.stop({ keepData: true });
    expect(fs.readdirSync(dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('--no-dev-methods', () => {
  it('answers -32601 for the test methods and sends from no impersonated account', async () => {
    const n = await startTestNode({ blockTime: 0, ephemeral: true, devMethods: false });
    nodes.push(n);
    await expect(
      rpc(n.url, 'anvil_setBalance', ['0x00000000000000000000000000000000000e0002', '0x5']),
    ).rejects.toMatchObject({
      code: -32601,
      message: 'test methods are not available on this node',
    });
    await expect(rpc(n.url, 'evm_snapshot', [])).rejects.toMatchObject({ code: -32601 });
    await expect(
      rpc(n.url, 'eth_sendTransaction', [
        { from: '0x00000000000000000000000000000000000e0002', to: n.accounts[0].address },
      ]),
    ).rejects.toMatchObject({ code: -32000, message: expect.stringMatching(/unknown account/) });
  });
});
