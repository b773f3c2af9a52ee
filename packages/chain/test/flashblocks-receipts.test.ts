/**
 * Receipts of pre-confirmed transactions (design, "Chain node decisions", `pending`): with 2 s
 * blocks and 200 ms flashblocks, eth_getTransactionReceipt answers as soon as a transaction is in
 * a published flashblock — `blockHash` the zero hash (in its logs too), as Base's node answers,
 * `blockNumber` the block being built, index, gas and log indexes real — and after the seal the
 * same receipt with the block's hash. What clients make of it: viem's waitForTransactionReceipt
 * takes it (1 confirmation) or waits for the seal (2); ethers v6 takes it (`tx.wait()` resolves at
 * the pre-confirmation). `pendingNulls: true` gives the spec table's null shape instead.
 */
import { JsonRpcProvider, Wallet } from 'ethers';
import {
  type Chain,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  parseEther,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileStore } from './node-contract.js';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

const { abi, bytecode } = compileStore();
const STORED = keccak256(toHex('Stored(address,uint256)'));
const TO = '0x0000000000000000000000000000000000c0ffee';

function viemClients(node: TestNode, accountIndex: number) {
  const chain: Chain = {
    id: 31337,
    name: 'wharf',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  };
  const transport = http(node.url);
  const account = privateKeyToAccount(node.accounts[accountIndex].privateKey);
  return {
    account,
    pub: createPublicClient({ chain, transport, pollingInterval: 50 }),
    wallet: createWalletClient({ chain, transport, account }),
  };
}

/** Waits for the next seal and returns the new head: the whole block time is ahead. */
async function afterSeal(node: TestNode): Promise<bigint> {
  const start = BigInt(await rpc(node.url, 'eth_blockNumber'));
  return waitFor(async () => {
    const n = BigInt(await rpc(node.url, 'eth_blockNumber'));
    return n > start ? n : undefined;
  }, 5000);
}

async function pendingHas(node: TestNode, hashes: string[]): Promise<string[] | undefined> {
  const b = await rpc(node.url, 'eth_getBlockByNumber', ['pending', false]);
  return hashes.every((h) => b.transactions.includes(h)) ? b.transactions : undefined;
}

const quantity = (n: bigint | number) => `0x${n.toString(16)}`;
const ZERO_HASH = `0x${'0'.repeat(64)}`;

/** A receipt as it reads after the seal: the pre-confirmed one with the block's hash. */
function sealedForm(receipt: any, blockHash: string) {
  return { ...receipt, blockHash, logs: receipt.logs.map((l: any) => ({ ...l, blockHash })) };
}

/** Sealed: a receipt with a real block hash (a pre-confirmed one has the zero hash or null). */
const isSealed = (r: { blockHash: string | null } | null) => !!r?.blockHash && r.blockHash !== ZERO_HASH;

async function deployStore(node: TestNode, accountIndex: number): Promise<`0x${string}`> {
  const { wallet } = viemClients(node, accountIndex);
  const hash = await wallet.deployContract({ abi, bytecode });
  const r = await waitFor(async () => {
    const receipt = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
    return isSealed(receipt) ? receipt : undefined;
  });
  return r.contractAddress;
}

describe('pre-confirmed receipts (2 s blocks, 200 ms flashblocks)', () => {
  let node: TestNode;
  let store: `0x${string}`;
  beforeAll(async () => {
    node = await startTestNode({ blockTime: 2, flashblockInterval: 200 });
    store = await deployStore(node, 9);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('answers before the seal with the zero hash as blockHash, then with the sealed hash at the same place', async () => {
    const latest = await afterSeal(node);
    const building = quantity(latest + 1n);
    // A transfer (no logs) and two calls that each emit one event, from three senders.
    const transfer = viemClients(node, 0).wallet.sendTransaction({ to: TO, value: parseEther('0.01') });
    const set42 = viemClients(node, 1).wallet.writeContract({
      address: store,
      abi,
      functionName: 'set',
      args: [42n],
    });
    const set7 = viemClients(node, 2).wallet.writeContract({
      address: store,
      abi,
      functionName: 'set',
      args: [7n],
    });
    const hashes: Hex[] = await Promise.all([transfer, set42, set7]);

    const receipts = await waitFor(async () => {
      const rs = await Promise.all(hashes.map((h) => rpc(node.url, 'eth_getTransactionReceipt', [h])));
      return rs.every(Boolean) ? rs : undefined;
    }, 1500);
    // Read before the seal: `latest` does not include them yet.
    expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(latest);
    const order = await waitFor(() => pendingHas(node, hashes));
    const pendingReceipts = await rpc(node.url, 'eth_getBlockReceipts', ['pending']);

    let cumulative = 0n;
    let logsBefore = 0;
    for (const i of order.map((h) => hashes.indexOf(h as Hex))) {
      const r = receipts[i];
      const index = order.indexOf(hashes[i]);
      expect(r).toMatchObject({
        transactionHash: hashes[i],
        blockHash: ZERO_HASH,
        blockNumber: building,
        transactionIndex: quantity(index),
        status: '0x1',
        from: node.accounts[i].address,
        contractAddress: null,
      });
      const gasUsed = BigInt(r.gasUsed);
      cumulative += gasUsed;
      expect(BigInt(r.cumulativeGasUsed)).toBe(cumulative);
      expect(BigInt(r.effectiveGasPrice)).toBeGreaterThan(0n);
      if (i === 0) {
        expect(gasUsed).toBe(21000n);
        expect(r.logs).toEqual([]);
      } else {
        expect(gasUsed).toBeGreaterThan(21000n);
        expect(r.to).toBe(store);
        expect(r.logs).toHaveLength(1);
        expect(r.logs[0]).toMatchObject({
          address: store,
          blockHash: ZERO_HASH,
          blockNumber: building,
          transactionHash: hashes[i],
          transactionIndex: quantity(index),
          logIndex: quantity(logsBefore),
          removed: false,
        });
        expect(r.logs[0].topics[0]).toBe(STORED);
        expect(BigInt(r.logs[0].data)).toBe(i === 1 ? 42n : 7n);
        logsBefore += 1;
      }
      // One answer for the block being built: eth_getBlockReceipts("pending") agrees.
      expect(pendingReceipts[index]).toEqual(r);
      const tx = await rpc(node.url, 'eth_getTransactionByHash', [hashes[i]]);
      expect(tx).toMatchObject({ blockHash: null, blockNumber: building, transactionIndex: quantity(index) });
    }
    const pendingBlock = await rpc(node.url, 'eth_getBlockByNumber', ['pending', false]);
    expect(BigInt(pendingBlock.gasUsed)).toBe(cumulative);

    // The seal: the same receipts, now with the block's hash.
    const sealed = await waitFor(() => rpc(node.url, 'eth_getBlockByNumber', [building, false]), 5000);
    expect(sealed.transactions).toEqual(order);
    for (const [i, h] of hashes.entries()) {
      const after = await rpc(node.url, 'eth_getTransactionReceipt', [h]);
      expect(after).toEqual(sealedForm(receipts[i], sealed.hash));
      expect(await rpc(node.url, 'eth_getTransactionByHash', [h])).toMatchObject({
        blockHash: sealed.hash,
        blockNumber: building,
      });
    }
    expect(await rpc(node.url, 'eth_getBlockReceipts', [building])).toEqual(
      order.map((h) => sealedForm(receipts[hashes.indexOf(h as Hex)], sealed.hash)),
    );
  });

  it('still answers null for an unknown hash and for a transaction only in the pool', async () => {
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`])).toBeNull();
    // A nonce gap keeps a transaction queued in the pool, never pre-confirmed.
    const account = privateKeyToAccount(node.accounts[3].privateKey);
    const nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [account.address, 'pending']));
    const queued = await account.signTransaction({
      to: TO,
      value: 1n,
      nonce: nonce + 1,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337,
      type: 'eip1559',
    });
    const hash = await rpc(node.url, 'eth_sendRawTransaction', [queued]);
    await new Promise((r) => setTimeout(r, 450)); // two flashblocks
    expect(await rpc(node.url, 'eth_getTransactionByHash', [hash])).toMatchObject({
      blockHash: null,
      blockNumber: null,
    });
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [hash])).toBeNull();
  });

  it("viem's waitForTransactionReceipt takes a pre-confirmed receipt; with confirmations: 2 it waits for the seal", async () => {
    const { pub, wallet } = viemClients(node, 4);
    const latest = await afterSeal(node);
    const hash = await wallet.sendTransaction({ to: TO, value: 1n });
    await waitFor(() => pendingHas(node, [hash]), 1500);
    // One confirmation: the pre-confirmation is enough.
    const preconfirmed = await pub.waitForTransactionReceipt({ hash });
    expect(preconfirmed).toMatchObject({ status: 'success', blockHash: ZERO_HASH, blockNumber: latest + 1n });
    expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(latest);

    // Two confirmations: the block sealed and one more on top of it; the receipt is the sealed one.
    const confirmed = await pub.waitForTransactionReceipt({ hash, confirmations: 2 });
    const head = BigInt(await rpc(node.url, 'eth_blockNumber'));
    expect(head).toBeGreaterThanOrEqual(latest + 2n);
    const sealed = await rpc(node.url, 'eth_getBlockByNumber', [quantity(latest + 1n), false]);
    expect(confirmed).toMatchObject({ status: 'success', blockHash: sealed.hash, blockNumber: latest + 1n });
    expect(confirmed.transactionIndex).toBe(preconfirmed.transactionIndex);
  });

  it('ethers v6 takes a pre-confirmed receipt: tx.wait() resolves before the seal', async () => {
    const provider = new JsonRpcProvider(node.url, undefined, {
      staticNetwork: true,
      pollingInterval: 50,
      cacheTimeout: -1,
    });
    try {
      const wallet = new Wallet(node.accounts[5].privateKey, provider);
      const latest = await afterSeal(node);
      const tx = await wallet.sendTransaction({ to: TO, value: 1n });
      const receipt = await tx.wait();
      // Resolved at the pre-confirmation: the block it names is still being built.
      expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(latest);
      expect(receipt).toMatchObject({
        hash: tx.hash,
        status: 1,
        blockNumber: Number(latest + 1n),
        blockHash: ZERO_HASH,
        index: 0,
      });
      expect(await provider.getTransactionReceipt(tx.hash)).toMatchObject({ blockHash: ZERO_HASH });
    } finally {
      provider.destroy();
    }
  });
});

describe("pendingNulls: true (the spec table's null shape)", () => {
  let node: TestNode;
  let store: `0x${string}`;
  beforeAll(async () => {
    node = await startTestNode({ blockTime: 2, flashblockInterval: 200, pendingNulls: true });
    store = await deployStore(node, 9);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('answers the block being built and its receipts with null number and hashes, then the sealed ones', async () => {
    const { wallet } = viemClients(node, 0);
    const latest = await afterSeal(node);
    const building = quantity(latest + 1n);
    const hash = await wallet.writeContract({ address: store, abi, functionName: 'set', args: [5n] });
    await waitFor(() => pendingHas(node, [hash]), 1500);
    const head = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
    expect(await rpc(node.url, 'eth_getBlockByNumber', ['pending', false])).toMatchObject({
      number: null,
      hash: null,
      parentHash: head.hash,
    });
    const receipt = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
    expect(receipt).toMatchObject({
      transactionHash: hash,
      blockHash: null,
      blockNumber: building,
      transactionIndex: '0x0',
      status: '0x1',
    });
    expect(receipt.logs).toHaveLength(1);
    expect(receipt.logs[0]).toMatchObject({ blockHash: null, blockNumber: building, logIndex: '0x0' });
    expect(await rpc(node.url, 'eth_getBlockReceipts', ['pending'])).toEqual([receipt]);
    expect(await rpc(node.url, 'eth_getLogs', [{ fromBlock: 'pending', toBlock: 'pending' }])).toEqual(
      receipt.logs,
    );
    expect(await rpc(node.url, 'eth_getTransactionByHash', [hash])).toMatchObject({
      blockHash: null,
      blockNumber: building,
      transactionIndex: '0x0',
    });

    const sealed = await waitFor(() => rpc(node.url, 'eth_getBlockByNumber', [building, false]), 5000);
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [hash])).toEqual(
      sealedForm(receipt, sealed.hash),
    );
  });
});
