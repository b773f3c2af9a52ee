/**
 * The test methods on a node with flashblocks (2 s blocks, 200 ms flashblocks): a state change
 * shows at `pending` from the next flashblock and at `latest` only after the seal; evm_mine seals
 * the block being built at once, with its pre-confirmed transactions, and returns once it is
 * sealed; interval mining off with automine off stops sealing until evm_mine; evm_revert drops
 * the later blocks for good: the restarted node (which replays its flashblock journal at start)
 * does not bring them back.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});

const WHO = '0x00000000000000000000000000000000000f0001';

describe('test methods with flashblocks', () => {
  it('a state change: pending from the next flashblock, latest after the seal; evm_mine seals at once', async () => {
    const node = await startTestNode({ blockTime: 2, flashblockInterval: 200 });
    nodes.push(node);
    // Right after a seal, so that the whole block time is ahead.
    const start = BigInt(await rpc(node.url, 'eth_blockNumber'));
    await waitFor(async () => BigInt(await rpc(node.url, 'eth_blockNumber')) > start, 5000);
    const head = BigInt(await rpc(node.url, 'eth_blockNumber'));
    await rpc(node.url, 'anvil_setBalance', [WHO, '0x1234']);
    const seen = await waitFor(
      async () => (await rpc(node.url, 'eth_getBalance', [WHO, 'pending'])) === '0x1234',
      1500,
    );
    expect(seen).toBe(true);
    // Not sealed yet.
    if (BigInt(await rpc(node.url, 'eth_blockNumber')) === head)
      expect(await rpc(node.url, 'eth_getBalance', [WHO, 'latest'])).toBe('0x0');
    await waitFor(async () => (await rpc(node.url, 'eth_getBalance', [WHO, 'latest'])) === '0x1234', 5000);

    // A pre-confirmed transfer, then evm_mine: sealed when the call returns, with the transfer.
    const hash = await rpc(node.url, 'eth_sendTransaction', [
      { from: node.accounts[0].address, to: WHO, value: '0x10' },
    ]);
    await waitFor(async () => (await rpc(node.url, 'eth_getTransactionReceipt', [hash])) !== null, 1500);
    const before = BigInt(await rpc(node.url, 'eth_blockNumber'));
    expect(await rpc(node.url, 'evm_mine', [])).toBe('0x0');
    const after = BigInt(await rpc(node.url, 'eth_blockNumber'));
    expect(after).toBeGreaterThan(before);
    const receipt = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
    expect(BigInt(receipt.blockNumber)).toBeLessThanOrEqual(after);
    expect(receipt.blockHash).not.toMatch(/^0x0{64}$/);
  }, 30_000);

  it('automine off and interval mining off: nothing is sealed until evm_mine', async () => {
    const node = await startTestNode({ blockTime: 2, flashblockInterval: 200 });
    nodes.push(node);
    expect(await rpc(node.url, 'anvil_getAutomine', [])).toBe(false);
    await rpc(node.url, 'evm_setIntervalMining', [0]);
    const head = await rpc(node.url, 'eth_blockNumber');
    const hash = await rpc(node.url, 'eth_sendTransaction', [
      { from: node.accounts[1].address, to: WHO, value: '0x1' },
    ]);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await rpc(node.url, 'eth_blockNumber')).toBe(head);
    // Still in the pool: not pre-confirmed either (Hardhat's manual mode).
    expect((await rpc(node.url, 'eth_getTransactionByHash', [hash])).blockNumber).toBe(null);
    await rpc(node.url, 'evm_mine', []);
    expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(BigInt(head) + 1n);
    expect((await rpc(node.url, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1');
    // Back to interval mining: blocks come by themselves again.
    await rpc(node.url, 'evm_setIntervalMining', [1]);
    const now = BigInt(await rpc(node.url, 'eth_blockNumber'));
    await waitFor(async () => BigInt(await rpc(node.url, 'eth_blockNumber')) > now, 5000);
  }, 30_000);

  it('evm_revert drops the later blocks for good, across a restart', async () => {
    const node = await startTestNode({ blockTime: 1, flashblockInterval: 200 });
    const id = await rpc(node.url, 'evm_snapshot', []);
    const snapHead = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
    const hash = await rpc(node.url, 'eth_sendTransaction', [
      { from: node.accounts[2].address, to: WHO, value: '0x99' },
    ]);
    // Sealed, and the blocks after it are in the flashblock journal's files.
    await waitFor(async () => (await rpc(node.url, 'eth_getTransactionReceipt', [hash]))?.blockHash, 5000);
    await waitFor(
      async () => BigInt(await rpc(node.url, 'eth_blockNumber')) >= BigInt(snapHead.number) + 2n,
      5000,
    );
    expect(await rpc(node.url, 'evm_revert', [id])).toBe(true);
    expect(await rpc(node.url, 'eth_getTransactionByHash', [hash])).toBe(null);
    expect(await rpc(node.url, 'eth_getBalance', [WHO, 'latest'])).toBe('0x0');
    await node.stop({ keepData: true });
    const again = await startTestNode({ dataDir: node.dataDir, blockTime: 1, flashblockInterval: 200 });
    nodes.push(again);
    expect(await rpc(again.url, 'eth_getTransactionByHash', [hash])).toBe(null);
    expect(await rpc(again.url, 'eth_getBalance', [WHO, 'latest'])).toBe('0x0');
    const block = await rpc(again.url, 'eth_getBlockByNumber', [snapHead.number, false]);
    expect(block.hash).toBe(snapHead.hash);
  }, 30_000);
});
