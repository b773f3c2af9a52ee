/**
 * Past state with path-keyed trie storage (decision 0211): the newest `--state-window` blocks
 * are readable (diff layers in memory over the trie on disk), older ones answer a clear -32000
 * naming the window and its flag, and a restart rebuilds the layers from the blocks' forward
 * diffs. A data directory of the old hash-keyed format is refused with what to do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach, DEV_KEYS, rpc, startTestNode, tempDir } from './node-helpers.js';

const { nodes, dirs } = cleanUpAfterEach();

const X = '0x00000000000000000000000000000000000d00d5';
const STEP = parseEther('0.001');
const hex = (n: number | bigint) => `0x${n.toString(16)}`;

async function sendTransfers(url: string, count: number, startNonce: number): Promise<void> {
  const account = privateKeyToAccount(DEV_KEYS[0]);
  const chain = {
    id: 31337,
    name: 'wharf',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  } as const;
  const wallet = createWalletClient({ chain, transport: http(url), account });
  for (let i = 0; i < count; i++) {
    const raw = await wallet.signTransaction({
      to: X,
      value: STEP,
      nonce: startNonce + i,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chain,
    });
    const hash = await rpc(url, 'eth_sendRawTransaction', [raw]);
    // One block each (automine): wait for its receipt before the next.
    for (let t = 0; t < 200 && !(await rpc(url, 'eth_getTransactionReceipt', [hash])); t++)
      await new Promise((r) => setTimeout(r, 25));
  }
}

/** X's balance after block n, from the blocks themselves (transfers to X in blocks 1..n). */
async function expectedBalance(url: string, n: number): Promise<string> {
  let txs = 0n;
  for (let b = 1; b <= n; b++)
    txs += BigInt((await rpc(url, 'eth_getBlockByNumber', [hex(b), false])).transactions.length);
  return hex(txs * STEP);
}

const refusal = (block: number, head: number, window: number) => ({
  code: -32000,
  message: `historical state not available: block ${block} is older than the ${window} blocks this node keeps state for (head ${head}, oldest ${head - window}; --state-window)`,
});

describe('--state-window', () => {
  it('reads the window, refuses older state by name, and keeps both across a restart', async () => {
    const W = 4;
    const dataDir = tempDir();
    dirs.push(dataDir);
    const a = await startTestNode({ dataDir, stateWindow: W });
    nodes.push(a);
    await sendTransfers(a.url, 10, 0);
    const snapshot = await rpc(a.url, 'evm_snapshot');
    const snapBlock = Number(await rpc(a.url, 'eth_blockNumber'));
    // Past 64 merged blocks, the disk layer has been written once (a flush) before the restart.
    await sendTransfers(a.url, 70, 10);
    const head = Number(await rpc(a.url, 'eth_blockNumber'));
    expect(head).toBeGreaterThanOrEqual(80);
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(Number(/^wharf_state_trie_flushes_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(/^wharf_state_layers_bytes (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);

    const check = async (url: string) => {
      for (let n = head - W; n <= head; n++) {
        expect(await rpc(url, 'eth_getBalance', [X, hex(n)]), `block ${n}`).toBe(
          await expectedBalance(url, n),
        );
        const proof = await rpc(url, 'eth_getProof', [X, ['0x0'], hex(n)]);
        expect(proof.balance).toBe(await expectedBalance(url, n));
        expect(proof.accountProof.length).toBeGreaterThan(0);
      }
      const old = head - W - 1;
      await expect(rpc(url, 'eth_getBalance', [X, hex(old)])).rejects.toMatchObject(refusal(old, head, W));
      await expect(rpc(url, 'eth_getProof', [X, [], hex(old)])).rejects.toMatchObject(refusal(old, head, W));
      await expect(rpc(url, 'eth_getStorageAt', [X, '0x0', hex(1)])).rejects.toMatchObject(
        refusal(1, head, W),
      );
      await expect(rpc(url, 'eth_call', [{ to: X }, hex(old)])).rejects.toMatchObject(refusal(old, head, W));
      const oldBlock = await rpc(url, 'eth_getBlockByNumber', [hex(old), true]);
      await expect(rpc(url, 'debug_traceTransaction', [oldBlock.transactions[0].hash])).rejects.toMatchObject(
        refusal(old - 1, head, W),
      );
      // Blocks, transactions and receipts stay readable.
      expect(oldBlock.number).toBe(hex(old));
      expect((await rpc(url, 'eth_getTransactionReceipt', [oldBlock.transactions[0].hash])).status).toBe(
        '0x1',
      );
    };
    await check(a.url);
    // A revert to a snapshot older than the window is refused, and nothing changes.
    await expect(rpc(a.url, 'evm_revert', [snapshot])).rejects.toMatchObject(refusal(snapBlock, head, W));
    expect(Number(await rpc(a.url, 'eth_blockNumber'))).toBe(head);
    // The snapshot is not used up by a refusal.
    await expect(rpc(a.url, 'evm_revert', [snapshot])).rejects.toMatchObject(refusal(snapBlock, head, W));

    await a.stop({ keepData: true });
    nodes.splice(0);
    const b = await startTestNode({ dataDir, stateWindow: W });
    nodes.push(b);
    expect(Number(await rpc(b.url, 'eth_blockNumber'))).toBe(head);
    await check(b.url);
    // And it builds on the rebuilt state.
    await sendTransfers(b.url, 1, 80);
    expect(await rpc(b.url, 'eth_getBalance', [X, 'latest'])).toBe(await expectedBalance(b.url, head + 1));
  }, 180_000);

  it('evm_revert inside the window drops the newer diff layers; the state there is as it was', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const a = await startTestNode({ dataDir, stateWindow: 8 });
    nodes.push(a);
    await sendTransfers(a.url, 3, 0);
    const snapshot = await rpc(a.url, 'evm_snapshot');
    const at = Number(await rpc(a.url, 'eth_blockNumber'));
    const before = await rpc(a.url, 'eth_getProof', [X, [], hex(at)]);
    await sendTransfers(a.url, 5, 3);
    expect(await rpc(a.url, 'evm_revert', [snapshot])).toBe(true);
    expect(Number(await rpc(a.url, 'eth_blockNumber'))).toBe(at);
    expect(await rpc(a.url, 'eth_getProof', [X, [], 'latest'])).toEqual(before);
    // New blocks on top of the reverted head, and past state among them, read as they should.
    await sendTransfers(a.url, 2, 3);
    expect(await rpc(a.url, 'eth_getBalance', [X, hex(at + 1)])).toBe(await expectedBalance(a.url, at + 1));
    expect(await rpc(a.url, 'eth_getBalance', [X, hex(at)])).toBe(before.balance);
  }, 120_000);

  it('keeps fewer blocks when their trie changes pass --state-window-memory, and says so', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    // One byte: only the newest block's changes stay in memory, the window is one block.
    const a = await startTestNode({ dataDir, stateWindow: 128, stateWindowMemoryBytes: 1 });
    nodes.push(a);
    await sendTransfers(a.url, 4, 0);
    const head = Number(await rpc(a.url, 'eth_blockNumber'));
    expect(await rpc(a.url, 'eth_getBalance', [X, hex(head - 1)])).toBe(
      await expectedBalance(a.url, head - 1),
    );
    await expect(rpc(a.url, 'eth_getBalance', [X, hex(head - 2)])).rejects.toMatchObject({
      code: -32000,
      message: `historical state not available: block ${head - 2} is older than the 1 blocks this node keeps state for (head ${head}, oldest ${head - 1}; --state-window-memory)`,
    });
  }, 60_000);

  it('refuses a data directory of the old hash-keyed format, saying what to do', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    fs.cpSync(path.join(import.meta.dirname, 'fixtures-old-format'), dataDir, { recursive: true });
    await expect(startTestNode({ dataDir })).rejects.toThrow(
      `the data directory ${dataDir} holds the chain in the old format`,
    );
  });
});
