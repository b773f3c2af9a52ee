/**
 * The builder's blocks, made of flashblocks under staged load (staging passes, the flashblock's
 * rest, roots folded per flashblock), must be exactly what executing them from scratch gives: a
 * second, fresh copy of the same chain imports them (importBlock re-executes each block and
 * checks every root).
 */
import fs from 'node:fs';
import { createBlockFromRLP } from '@ethereumjs/block';
import { encodeFunctionData, getContractAddress, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { importBlock } from '../src/execution/importBlock.js';
import { openChain } from '../src/execution/openChain.js';
import { hexToBytes } from '../src/primitives/hex.js';
import { compileStore } from './node-contract.js';
import { DEV_KEYS, rpc, startTestNode, type TestNode, tempDir, waitFor } from './node-helpers.js';

const CHAIN_ID = 31337;
const nodes: TestNode[] = [];
afterEach(async () => {
  for (const n of nodes.splice(0)) await n.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sign(
  key: `0x${string}`,
  nonce: number,
  tx: { to?: `0x${string}`; value?: bigint; data?: `0x${string}`; gas: bigint },
) {
  return privateKeyToAccount(key).signTransaction({
    ...tx,
    nonce,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: CHAIN_ID,
    type: 'eip1559',
  });
}

describe('blocks the builder made of flashblocks under load', () => {
  it('is the block that executing it from scratch gives: a fresh copy of the chain imports it', async () => {
    // One dev chain (its genesis has a timestamp), copied before it mines: the copy is where
    // the sealed blocks are imported.
    const fresh = await startTestNode({ mining: false });
    await fresh.stop({ keepData: true });
    const copy = { dataDir: tempDir('wharf-copy-') };
    fs.cpSync(fresh.dataDir, copy.dataDir, { recursive: true });
    const node = await startTestNode({ dataDir: fresh.dataDir, blockTime: 2, flashblockInterval: 200 });
    nodes.push(node);

    const { abi, bytecode } = compileStore();
    const owner = privateKeyToAccount(DEV_KEYS[1]).address;
    const store = getContractAddress({ from: owner, nonce: 0n });
    const raws: `0x${string}`[] = [await sign(DEV_KEYS[1], 0, { data: bytecode, gas: 500_000n })];
    // Storage set, cleared and set again, a reverted call, in separate passes with transfers
    // between them: to fresh addresses, back to the senders, to the contract's creator.
    for (let i = 1; i <= 24; i++) {
      const data =
        i % 8 === 0
          ? encodeFunctionData({ abi, functionName: 'fail' })
          : encodeFunctionData({ abi, functionName: 'set', args: [i % 5 === 0 ? 0n : BigInt(i)] });
      raws.push(await sign(DEV_KEYS[1], i, { to: store, data, gas: 100_000n }));
    }
    const transfers: `0x${string}`[] = [];
    for (const k of [0, 2, 3])
      for (let n = 0; n < 40; n++) {
        const to =
          n % 3 === 0
            ? owner
            : (`0x${(0xabc000 + k * 100 + n).toString(16).padStart(40, '0')}` as `0x${string}`);
        transfers.push(
          await sign(DEV_KEYS[k], n, { to, value: parseEther('0.01') + BigInt(n), gas: 21_000n }),
        );
      }
    // Interleaved and spread over ~600 ms: many staging passes in several flashblocks.
    const all: `0x${string}`[] = [];
    for (let i = 0; i < Math.max(raws.length, transfers.length); i++) {
      if (raws[i]) all.push(raws[i]);
      for (const t of transfers.slice(i * 5, i * 5 + 5)) all.push(t);
    }
    const hashes: `0x${string}`[] = [];
    for (let i = 0; i < all.length; i += 8) {
      hashes.push(
        ...(await Promise.all(all.slice(i, i + 8).map((r) => rpc(node.url, 'eth_sendRawTransaction', [r])))),
      );
      await sleep(25);
    }
    // All sealed (a receipt with its block's hash; a pre-confirmed one has the zero hash), then
    // one more block for good measure.
    const sealedIn = await waitFor(async () => {
      const receipts = await Promise.all(hashes.map((h) => rpc(node.url, 'eth_getTransactionReceipt', [h])));
      return receipts.every((r) => r?.blockHash && !/^0x0{64}$/.test(r.blockHash)) ? receipts : undefined;
    }, 10_000);
    expect(sealedIn.filter((r) => r.status === '0x0')).toHaveLength(3); // the fail() calls
    // The last set: 23 (24 is a fail()).
    expect(BigInt(await rpc(node.url, 'eth_getStorageAt', [store, '0x0', 'latest']))).toBe(23n);
    const head = Number(await rpc(node.url, 'eth_blockNumber'));
    const raw: string[] = [];
    for (let n = 1; n <= head; n++)
      raw.push(await rpc(node.url, 'debug_getRawBlock', [`0x${n.toString(16)}`]));

    const ctx = await openChain(copy.dataDir, () => {
      throw new Error('the copy should exist already');
    });
    try {
      for (const r of raw) {
        const block = createBlockFromRLP(hexToBytes(r as `0x${string}`), {
          common: ctx.spec.common,
          setHardfork: true,
        });
        // Throws naming the mismatch (state root, receipts, gas) if the builder's block is wrong.
        await importBlock(ctx, block);
      }
      expect(ctx.blocks.head.header.number).toBe(BigInt(head));
      expect(ctx.blocks.head.hash()).toEqual(
        // By number: the node keeps sealing (empty) blocks while the copy imports.
        hexToBytes((await rpc(node.url, 'eth_getBlockByNumber', [`0x${head.toString(16)}`, false])).hash),
      );
    } finally {
      await ctx.store.close();
      fs.rmSync(copy.dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});
