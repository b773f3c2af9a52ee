/**
 * The builder executes pool transfers from the pool's decoded fields and builds their
 * @ethereumjs/tx objects only when read (builder/lazyTransactions.ts, PendingBlock.addPooled):
 * the read-through array itself, and what clients see of transfers of every plain type in the
 * pending block, the sealed block (from the in-memory head) and by hash, against what was signed.
 */
import { Block, createBlockHeader } from '@ethereumjs/block';
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx';
import { type Hex, parseTransaction, recoverTransactionAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashesOf, transactionsOf } from '../src/builder/lazyTransactions.js';
import { formatBlock } from '../src/rpc/format.js';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

describe('a block transactions array read through its items', () => {
  const key = new Uint8Array(32).fill(7);
  const made = () => createFeeMarket1559Tx({ nonce: 1n, gasLimit: 21_000n, maxFeePerGas: 7n }).sign(key);
  const items = () => {
    let built = 0;
    const list = [0, 1, 2].map(() => {
      let tx: ReturnType<typeof made> | undefined;
      return {
        get tx() {
          if (!tx) {
            built++;
            tx = made();
          }
          return tx;
        },
      };
    });
    return { list, built: () => built };
  };

  it('builds an item only when it is read, once, and reads like the array of them', () => {
    const { list, built } = items();
    const txs = transactionsOf(list);
    expect(txs.length).toBe(3);
    expect(Array.isArray(txs)).toBe(true);
    expect(built()).toBe(0);
    expect(txs[1]).toBe(list[1].tx);
    expect(built()).toBe(1);
    expect(txs[1]).toBe(txs[1]);
    expect(built()).toBe(1);
    expect(txs.map((t) => t.nonce)).toEqual([1n, 1n, 1n]);
    expect([...txs]).toEqual(list.map((i) => i.tx));
    expect(txs[3]).toBeUndefined();
    expect(txs.slice(1)).toEqual([list[1].tx, list[2].tx]);
    expect(built()).toBe(3);
  });

  it('gives the hashes the items carry without building them, and builds those that carry none', () => {
    const { list, built } = items();
    const carried = [Uint8Array.of(1), Uint8Array.of(2)];
    const withHash = (i: number) => ({
      hash: carried[i],
      get tx() {
        return list[i].tx;
      },
    });
    const txs = transactionsOf([withHash(0), withHash(1), list[2]]);
    const hashes = hashesOf(txs);
    expect(hashes.slice(0, 2)).toEqual(carried);
    expect(built()).toBe(1);
    expect(hashes[2]).toEqual(list[2].tx.hash());
    // A plain array (a block decoded from disk) hashes its objects.
    expect(hashesOf([list[0].tx])).toEqual([list[0].tx.hash()]);
  });

  it("counts a block's size from the items' encodings, building none, as serializing it would", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun });
    const signed = [
      createLegacyTx({ nonce: 0n, gasLimit: 21_000n, gasPrice: 7n }, { common }).sign(key),
      createFeeMarket1559Tx(
        { nonce: 1n, gasLimit: 21_000n, maxFeePerGas: 7n, data: new Uint8Array(100) },
        { common },
      ).sign(key),
    ];
    let built = 0;
    const lazyItems = signed.map((t) => ({
      raw: t.serialize(),
      hash: t.hash(),
      get tx() {
        built++;
        return t;
      },
    }));
    const header = createBlockHeader({ number: 1n, gasLimit: 30_000_000n }, { common });
    const lazy = new Block(header, transactionsOf(lazyItems), [], [], { common });
    const json = formatBlock(lazy, false, [], {}) as { size: string; transactions: string[] };
    expect(built).toBe(0);
    const plain = new Block(header, signed, [], [], { common });
    expect(Number(json.size)).toBe(plain.serialize().length);
    expect(json.transactions).toEqual(signed.map((t) => `0x${Buffer.from(t.hash()).toString('hex')}`));
  });

  it('refuses writes: the items stay as they were', () => {
    const { list } = items();
    const txs = transactionsOf(list);
    expect(() => {
      txs[0] = made();
    }).toThrow(TypeError);
    expect(() => txs.push(made())).toThrow(TypeError);
    expect(list.length).toBe(3);
  });
});

describe('pooled transfers of every plain type, as clients see them', () => {
  let node: TestNode;
  const TO = '0x00000000000000000000000000000000000b0b0b';
  beforeAll(async () => {
    node = await startTestNode({ blockTime: 2, flashblockInterval: 200 });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('shows each one as signed: pending block, sealed block, by hash, with the fee each paid', async () => {
    const account = privateKeyToAccount(node.accounts[3].privateKey);
    const nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [account.address, 'pending']));
    const common = { to: TO as Hex, gas: 21_000n, chainId: 31337 };
    const raws = [
      await account.signTransaction({
        ...common,
        type: 'legacy',
        nonce,
        value: 1n,
        gasPrice: 9_000_000_000n,
      }),
      await account.signTransaction({
        ...common,
        type: 'eip2930',
        nonce: nonce + 1,
        value: 2n,
        gasPrice: 8_000_000_000n,
        accessList: [],
      }),
      await account.signTransaction({
        ...common,
        type: 'eip1559',
        nonce: nonce + 2,
        value: 3n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 2n,
      }),
    ];
    const before = BigInt(await rpc(node.url, 'eth_getBalance', [account.address, 'latest']));
    const hashes: string[] = [];
    for (const raw of raws) hashes.push(await rpc(node.url, 'eth_sendRawTransaction', [raw]));

    const expectAsSigned = async (tx: Record<string, string>, i: number) => {
      const signed = parseTransaction(raws[i]);
      expect(tx.hash).toBe(hashes[i]);
      expect(tx.from.toLowerCase()).toBe(
        (await recoverTransactionAddress({ serializedTransaction: raws[i] as never })).toLowerCase(),
      );
      expect(tx.to).toBe(TO);
      expect(BigInt(tx.value)).toBe(signed.value);
      expect(BigInt(tx.nonce)).toBe(BigInt(signed.nonce!));
      expect(Number(tx.type)).toBe([0, 1, 2][i]);
      expect(tx.input).toBe('0x');
      expect(tx.r).toBe(`0x${BigInt(signed.r!).toString(16)}`);
    };

    const pending = await waitFor(async () => {
      const b = await rpc(node.url, 'eth_getBlockByNumber', ['pending', true]);
      return hashes.every((h) => b.transactions.some((t: { hash: string }) => t.hash === h)) ? b : undefined;
    });
    for (const [i, h] of hashes.entries())
      await expectAsSigned(
        pending.transactions.find((t: { hash: string }) => t.hash === h),
        i,
      );

    const receipts = await waitFor(async () => {
      const rs = await Promise.all(hashes.map((h) => rpc(node.url, 'eth_getTransactionReceipt', [h])));
      return rs.every((r) => r && r.blockHash !== `0x${'0'.repeat(64)}`) ? rs : undefined;
    }, 10_000);
    const sealed = await rpc(node.url, 'eth_getBlockByNumber', [receipts[0].blockNumber, true]);
    for (const [i, h] of hashes.entries()) {
      await expectAsSigned(
        sealed.transactions.find((t: { hash: string }) => t.hash === h),
        i,
      );
      await expectAsSigned(await rpc(node.url, 'eth_getTransactionByHash', [h]), i);
    }
    // The fees: legacy and 2930 pay their gas price, 1559 the base fee and its tip.
    const baseFee = BigInt(sealed.baseFeePerGas);
    expect(receipts.map((r) => BigInt(r.effectiveGasPrice))).toEqual([
      9_000_000_000n,
      8_000_000_000n,
      baseFee + 2n,
    ]);
    const after = BigInt(await rpc(node.url, 'eth_getBalance', [account.address, receipts[0].blockNumber]));
    const paid = receipts.reduce((s, r) => s + BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice), 0n);
    expect(before - after).toBe(paid + 6n);
  });
});
