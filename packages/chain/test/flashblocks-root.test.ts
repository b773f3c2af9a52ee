/**
 * The state root of a block built a piece at a time: staging passes fold what they executed into
 * the flashblock's root as they go (PendingBlock.advanceRoot), the flashblock folds the rest. The
 * sealed blocks must be exactly what executing them from scratch gives: a second, fresh copy of
 * the same chain imports them (importBlock re-executes each block and checks every root).
 */
import fs from 'node:fs';
import { createBlockFromRLP } from '@ethereumjs/block';
import { encodeFunctionData, getContractAddress, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTxFromRLP } from '@ethereumjs/tx';
import { PendingBlock } from '../src/builder/pendingBlock.js';
import { IncrementalStateRoot } from '../src/state/incrementalRoot.js';
import { importBlock } from '../src/execution/importBlock.js';
import { openChain } from '../src/execution/openChain.js';
import { hexToBytes } from '../src/primitives/hex.js';
import { compileStore } from './node-contract.js';
import { DEV_KEYS, rpc, startTestNode, type TestNode, tempDir, waitFor } from './node-helpers.js';

const CHAIN_ID = 31337;
const nodes: TestNode[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
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

describe('a block whose root was folded by staging passes', () => {
  it('is the block that executing it from scratch gives: a fresh copy of the chain imports it', async () => {
    const folds = vi.spyOn(PendingBlock.prototype, 'advanceRoot');
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
    // All sealed (a receipt with a block hash), then one more block for good measure.
    const sealedIn = await waitFor(async () => {
      const receipts = await Promise.all(hashes.map((h) => rpc(node.url, 'eth_getTransactionReceipt', [h])));
      return receipts.every((r) => r?.blockHash) ? receipts : undefined;
    }, 10_000);
    expect(sealedIn.filter((r) => r.status === '0x0')).toHaveLength(3); // the fail() calls
    // The last set: 23 (24 is a fail()).
    expect(BigInt(await rpc(node.url, 'eth_getStorageAt', [store, '0x0', 'latest']))).toBe(23n);
    const head = Number(await rpc(node.url, 'eth_blockNumber'));
    const raw: string[] = [];
    for (let n = 1; n <= head; n++)
      raw.push(await rpc(node.url, 'debug_getRawBlock', [`0x${n.toString(16)}`]));
    // Staging passes did fold roots (the path under test), in the blocks that carry the load.
    expect(folds.mock.calls.length).toBeGreaterThan(5);

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
        hexToBytes((await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).hash),
      );
    } finally {
      await ctx.store.close();
      fs.rmSync(copy.dataDir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('PendingBlock.advanceRoot', () => {
  it('gives the same roots as folding each flashblock whole, a failed fold included', async () => {
    const fresh = await startTestNode({ mining: false });
    await fresh.stop({ keepData: true });
    const ctx = await openChain(fresh.dataDir, () => {
      throw new Error('the chain should exist already');
    });
    try {
      const { abi, bytecode } = compileStore();
      const owner = privateKeyToAccount(DEV_KEYS[1]).address;
      const store = getContractAddress({ from: owner, nonce: 0n });
      const raws = [await sign(DEV_KEYS[1], 0, { data: bytecode, gas: 500_000n })];
      for (let i = 1; i <= 12; i++) {
        const data =
          i % 6 === 0
            ? encodeFunctionData({ abi, functionName: 'fail' })
            : encodeFunctionData({ abi, functionName: 'set', args: [i % 4 === 0 ? 0n : BigInt(i)] });
        raws.push(await sign(DEV_KEYS[1], i, { to: store, data, gas: 100_000n }));
        // Odd ones to fresh addresses: touched once, never again (a lost fold would not heal).
        const to = i % 2 ? (`0x${(0xf00d00 + i).toString(16).padStart(40, '0')}` as const) : store;
        raws.push(await sign(DEV_KEYS[2], i - 1, { to, value: BigInt(i), gas: 60_000n }));
      }
      const parent = ctx.blocks.head;
      const ts = parent.header.timestamp + 2n;
      const folded = new PendingBlock(ctx, parent, ts, new Uint8Array());
      const whole = new PendingBlock(ctx, parent, ts, new Uint8Array());
      const txOf = (raw: string) =>
        createTxFromRLP(hexToBytes(raw as `0x${string}`), { common: folded.header.common });
      // Two flashblocks; in the first, folds after 3 and 9 transactions and one that fails (a
      // trie read), after which the next fold starts over from the whole layer.
      const plan = [
        { upTo: 15, foldAfter: [3, 9], failAt: 9 },
        { upTo: raws.length, foldAfter: [18, 20], failAt: -1 },
      ];
      const apply = IncrementalStateRoot.prototype.apply;
      let n = 0;
      for (const [index, step] of plan.entries()) {
        for (; n < step.upTo; n++) {
          for (const b of [folded, whole]) expect((await b.add(txOf(raws[n]))).ok).toBe(true);
          if (step.foldAfter.includes(n + 1)) {
            const failing =
              n + 1 === step.failAt
                ? vi.spyOn(IncrementalStateRoot.prototype, 'apply').mockImplementationOnce(async function (
                    this: IncrementalStateRoot,
                    ...args
                  ) {
                    // Half done, then a read fails: some accounts folded, the rest not.
                    const [diff, after] = args;
                    const half = new Map([...diff.accounts].slice(0, Math.ceil(diff.accounts.size / 2)));
                    await apply.call(this, { accounts: half, storage: new Map(), code: diff.code }, after);
                    throw new Error('trie node read failed');
                  })
                : undefined;
            if (failing) await expect(folded.advanceRoot()).rejects.toThrow('trie node read failed');
            else await folded.advanceRoot();
            failing?.mockRestore();
          }
        }
        const a = await folded.publish(index + 1, await folded.prepare());
        const b = await whole.publish(index + 1, await whole.prepare());
        expect(a.header.stateRoot).toEqual(b.header.stateRoot);
        expect(a.txs).toHaveLength(n);
      }
      const [sa, sb] = await Promise.all([folded.prepareSeal(), whole.prepareSeal()]);
      expect(sa.block.hash()).toEqual(sb.block.hash());
      expect(sa.block.header.stateRoot).not.toEqual(parent.header.stateRoot);
    } finally {
      await ctx.store.close();
      fs.rmSync(fresh.dataDir, { recursive: true, force: true });
    }
  });
});
