/**
 * The transaction index names a block number and a position (decision 0423): after evm_revert a
 * new block takes the same number, and a transaction of the dropped block must not be found at
 * its old position (which now holds another transaction), before or after a restart. Its key is
 * the hash's first 12 bytes (decision 0520); entries written before under the whole hash are
 * read by storage-before-0420.test.ts.
 */
import path from 'node:path';
import { ClassicLevel } from 'classic-level';
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

describe('transaction index keys', () => {
  it('are 13 bytes (a prefix byte and 12 of the hash), and every transaction is found by its hash after a restart', async () => {
    const node = await startTestNode();
    nodes.push(node);
    const from = node.accounts[2].address;
    const hashes: string[] = [];
    for (let i = 0; i < 5; i++)
      hashes.push(
        await rpc(node.url, 'eth_sendTransaction', [
          { from, to: `0x00000000000000000000000000000000000000e${i}`, value: '0x1' },
        ]),
      );
    const receipts = await Promise.all(hashes.map((h) => rpc(node.url, 'eth_getTransactionReceipt', [h])));
    await node.stop({ keepData: true });
    nodes.splice(0);

    const db = new ClassicLevel<Uint8Array, Uint8Array>(path.join(node.dataDir, 'chain'), {
      keyEncoding: 'view',
      valueEncoding: 'view',
    });
    const index: Uint8Array[] = [];
    for await (const k of db.keys()) if (k[0] === 0x54 || k[0] === 0x74) index.push(k); // 'T', 't'
    await db.close();
    expect(index.length).toBeGreaterThanOrEqual(hashes.length);
    expect(index.every((k) => k.length === 13 && k[0] === 0x54)).toBe(true);
    for (const h of hashes)
      expect(index.some((k) => Buffer.from(k.subarray(1)).toString('hex') === h.slice(2, 26))).toBe(true);

    const again = await startTestNode({ dataDir: node.dataDir });
    nodes.push(again);
    for (const [i, h] of hashes.entries()) {
      expect(await rpc(again.url, 'eth_getTransactionReceipt', [h])).toEqual(receipts[i]);
      expect(await rpc(again.url, 'eth_getTransactionByHash', [h])).toMatchObject({ hash: h });
    }
    // A hash sharing the stored key's 12 bytes but not the rest is not found.
    const other = `${hashes[0].slice(0, 26)}${'0'.repeat(40)}`;
    expect(await rpc(again.url, 'eth_getTransactionByHash', [other])).toBe(null);
    expect(await rpc(again.url, 'eth_getTransactionReceipt', [other])).toBe(null);
  }, 60_000);
});
