/**
 * The transaction index names a block number and a position (decision 0423): after evm_revert a
 * new block takes the same number, and a transaction of the dropped block must not be found at
 * its old position (which now holds another transaction), before or after a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rpc, startTestNode, type TestNode } from './node-helpers.js';

const nodes: TestNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.stop();
});

describe('transaction index by block number', () => {
  it('finds the transaction a reverted block number now holds, never the dropped one', async () => {
    const node = await startTestNode(); // automine: one transaction, one block
    nodes.push(node);
    const from = node.accounts[1].address;
    const snap = await rpc(node.url, 'evm_snapshot', []);
    const dropped = await rpc(node.url, 'eth_sendTransaction', [
      { from, to: '0x00000000000000000000000000000000000000d1', value: '0x1' },
    ]);
    const first = await rpc(node.url, 'eth_getTransactionReceipt', [dropped]);
    expect(await rpc(node.url, 'evm_revert', [snap])).toBe(true);
    const kept = await rpc(node.url, 'eth_sendTransaction', [
      { from, to: '0x00000000000000000000000000000000000000d2', value: '0x2' },
    ]);
    const second = await rpc(node.url, 'eth_getTransactionReceipt', [kept]);
    // Same number, same position, another block and transaction.
    expect(second.blockNumber).toBe(first.blockNumber);
    expect(second.transactionIndex).toBe(first.transactionIndex);
    expect(second.blockHash).not.toBe(first.blockHash);

    const check = async (url: string) => {
      expect(await rpc(url, 'eth_getTransactionByHash', [dropped])).toBe(null);
      expect(await rpc(url, 'eth_getTransactionReceipt', [dropped])).toBe(null);
      const tx = await rpc(url, 'eth_getTransactionByHash', [kept]);
      expect(tx).toMatchObject({ hash: kept, blockHash: second.blockHash, transactionIndex: '0x0' });
      expect(await rpc(url, 'eth_getTransactionReceipt', [kept])).toEqual(second);
    };
    await check(node.url);
    await node.stop({ keepData: true });
    nodes.splice(0);
    const again = await startTestNode({ dataDir: node.dataDir });
    nodes.push(again);
    await check(again.url);
  }, 60_000);
});
