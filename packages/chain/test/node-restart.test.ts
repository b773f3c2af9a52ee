/**
 * Durability: a clean restart and a kill -9 keep every sealed block and its state (each seal is
 * one atomic LevelDB batch).
 */
import fs from 'node:fs';
import { createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEV_KEYS,
  killChildNodes,
  rpc,
  startChildNode,
  startTestNode,
  tempDir,
  waitFor,
} from './node-helpers.js';

const dirs: string[] = [];

afterEach(() => {
  killChildNodes();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const KEY = DEV_KEYS[0];

async function sendTransfers(url: string, count: number, startNonce: number): Promise<void> {
  const account = privateKeyToAccount(KEY);
  const chain = {
    id: 31337,
    name: 'wharf',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  } as const;
  const wallet = createWalletClient({ chain, transport: http(url), account });
  for (let i = 0; i < count; i++) {
    const raw = await wallet.signTransaction({
      to: '0x00000000000000000000000000000000000d00d5',
      value: parseEther('0.001'),
      nonce: startNonce + i,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chain,
    });
    await rpc(url, 'eth_sendRawTransaction', [raw]);
  }
}

describe('restart', () => {
  it('keeps blocks, balances and historical state across close and reopen', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const a = await startTestNode({ dataDir });
    await sendTransfers(a.url, 3, 0);
    await waitFor(async () => (await rpc(a.url, 'eth_blockNumber')) === '0x3');
    const block2 = await rpc(a.url, 'eth_getBlockByNumber', ['0x2', false]);
    const balance = await rpc(a.url, 'eth_getBalance', [
      '0x00000000000000000000000000000000000d00d5',
      'latest',
    ]);
    await a.stop({ keepData: true });

    const b = await startTestNode({ dataDir });
    try {
      expect(await rpc(b.url, 'eth_blockNumber')).toBe('0x3');
      expect(await rpc(b.url, 'eth_getBlockByNumber', ['0x2', false])).toEqual(block2);
      expect(
        await rpc(b.url, 'eth_getBalance', ['0x00000000000000000000000000000000000d00d5', 'latest']),
      ).toBe(balance);
      expect(await rpc(b.url, 'eth_getBalance', ['0x00000000000000000000000000000000000d00d5', '0x1'])).toBe(
        '0x38d7ea4c68000',
      );
      // The chain goes on from where it stopped.
      await sendTransfers(b.url, 1, 3);
      await waitFor(async () => (await rpc(b.url, 'eth_blockNumber')) === '0x4');
      const block4 = await rpc(b.url, 'eth_getBlockByNumber', ['0x4', false]);
      expect(block4.parentHash).toBe((await rpc(b.url, 'eth_getBlockByNumber', ['0x3', false])).hash);
    } finally {
      await b.stop({ keepData: true });
    }
  });

  it('survives kill -9 in the middle of sealing: every block seen before the kill is still there', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const first = await startChildNode(dataDir);
    await sendTransfers(first.url, 20, 0);
    const seen = await waitFor(async () => {
      const n = Number(await rpc(first.url, 'eth_blockNumber'));
      return n >= 5 ? n : undefined;
    });
    const seenBlock = await rpc(first.url, 'eth_getBlockByNumber', [`0x${seen.toString(16)}`, false]);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startChildNode(dataDir);
    const head = Number(await rpc(second.url, 'eth_blockNumber'));
    expect(head).toBeGreaterThanOrEqual(seen);
    expect(await rpc(second.url, 'eth_getBlockByNumber', [`0x${seen.toString(16)}`, false])).toEqual(
      seenBlock,
    );
    // State agrees with the blocks: one 0.001 ETH transfer per block. (Read at `head`: the
    // pool's journal brought back the unsealed transfers, which the node goes on sealing.)
    const at = `0x${head.toString(16)}`;
    const balance = BigInt(
      await rpc(second.url, 'eth_getBalance', ['0x00000000000000000000000000000000000d00d5', at]),
    );
    expect(balance).toBe(BigInt(head) * 10n ** 15n);
    expect(
      Number(await rpc(second.url, 'eth_getTransactionCount', [privateKeyToAccount(KEY).address, at])),
    ).toBe(head);
    // And it keeps producing on top.
    const nonce = Number(
      await rpc(second.url, 'eth_getTransactionCount', [privateKeyToAccount(KEY).address, 'pending']),
    );
    await sendTransfers(second.url, 1, nonce);
    await waitFor(async () => Number(await rpc(second.url, 'eth_blockNumber')) > head);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
  });
});

describe('data directory guards', () => {
  it('refuses a second node on the same data directory and a different chain id', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const a = await startTestNode({ dataDir });
    try {
      await expect(startTestNode({ dataDir })).rejects.toThrow(/in use by another process/);
    } finally {
      await a.stop({ keepData: true });
    }
    await expect(startTestNode({ dataDir, chainId: 5n })).rejects.toThrow(/chain id 31337, not 5/);
  });
});
