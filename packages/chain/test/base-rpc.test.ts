/**
 * Base's RPC extensions against a running node (design, "Base's RPC extensions"):
 * eth_sendRawTransactionSync, base_transactionStatus, `pending` in every state and block method
 * Base serves it in, eth_getLogs and log filters to `pending`.
 */
import { encodeFunctionData, type Hex, keccak256, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRpcLimits } from '../src/rpc/limits.js';
import { compileStore } from './node-contract.js';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

const ZERO_HASH = `0x${'0'.repeat(64)}`;
const STORED = keccak256(toHex('Stored(address,uint256)'));
const { abi, bytecode } = compileStore();
const quantity = (n: bigint | number) => `0x${n.toString(16)}`;
let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ blockTime: 3, flashblockInterval: 200 });
});
afterAll(async () => {
  await node?.stop();
});

/** Signs a transaction from dev account `i` at its pending nonce (plus `skip`). */
async function sign(i: number, tx: { to?: Hex; value?: bigint; data?: Hex; gas?: bigint }, skip = 0) {
  const account = privateKeyToAccount(node.accounts[i].privateKey);
  const nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [account.address, 'pending'])) + skip;
  return account.signTransaction({
    to: tx.to ?? null,
    value: tx.value ?? 0n,
    data: tx.data,
    nonce,
    gas: tx.gas ?? 300_000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: 31337,
    type: 'eip1559',
  });
}

/** Waits for the next seal; the whole block time is ahead. */
async function afterSeal(): Promise<bigint> {
  const start = BigInt(await rpc(node.url, 'eth_blockNumber'));
  return waitFor(async () => {
    const n = BigInt(await rpc(node.url, 'eth_blockNumber'));
    return n > start ? n : undefined;
  }, 6000);
}

async function rpcError(
  method: string,
  params: unknown[],
): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await rpc(node.url, method, params);
  } catch (e) {
    return e as { code: number; message: string; data?: unknown };
  }
  throw new Error(`${method} did not fail`);
}

describe('eth_sendRawTransactionSync', () => {
  it('answers with the pre-confirmed receipt, well before the seal', async () => {
    const latest = await afterSeal();
    const raw = await sign(0, { to: '0x00000000000000000000000000000000000b0b01', value: 5n, gas: 21000n });
    const started = performance.now();
    const receipt = await rpc(node.url, 'eth_sendRawTransactionSync', [raw]);
    const took = performance.now() - started;
    expect(receipt).toMatchObject({
      transactionHash: keccak256(raw),
      blockHash: ZERO_HASH,
      blockNumber: quantity(latest + 1n),
      status: '0x1',
      gasUsed: '0x5208',
    });
    expect(took).toBeLessThan(1000); // one flashblock (200 ms) and the request, on a shared machine
    expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(latest);
    // The same receipt eth_getTransactionReceipt gives.
    expect(await rpc(node.url, 'eth_getTransactionReceipt', [keccak256(raw)])).toEqual(receipt);
  });

  it("keeps eth_sendRawTransaction's errors, and times out with code 4 and the hash", async () => {
    const raw = await sign(1, { to: '0x00000000000000000000000000000000000b0b02', value: 1n, gas: 21000n });
    await rpc(node.url, 'eth_sendRawTransactionSync', [raw]);
    expect(await rpcError('eth_sendRawTransactionSync', [raw])).toMatchObject({
      code: -32000,
      message: expect.stringMatching(/already known|nonce too low/),
    });
    expect(await rpcError('eth_sendRawTransactionSync', ['0x1234'])).toMatchObject({
      code: expect.any(Number),
    });
    // A nonce gap: pooled (queued), never pre-confirmed — the wait ends at the timeout given.
    const gap = await sign(
      1,
      { to: '0x00000000000000000000000000000000000b0b02', value: 1n, gas: 21000n },
      1,
    );
    const started = performance.now();
    const e = await rpcError('eth_sendRawTransactionSync', [gap, 300]);
    const took = performance.now() - started;
    expect(e).toMatchObject({ code: 4, data: keccak256(gap) });
    expect(e.message).toMatch(/300 ms/);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2000);
    // Still in the pool: Base's transaction status says so.
    expect(await rpc(node.url, 'base_transactionStatus', [keccak256(gap)])).toEqual({ status: 'Known' });
    expect(await rpc(node.url, 'base_transactionStatus', [`0x${'12'.repeat(32)}`])).toEqual({
      status: 'Unknown',
    });
  });

  it('names a bad timeout', async () => {
    const raw = await sign(2, { to: '0x00000000000000000000000000000000000b0b03', value: 1n, gas: 21000n });
    for (const bad of [-1, 0, 1.5, 'soon', {}])
      expect(await rpcError('eth_sendRawTransactionSync', [raw, bad])).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/timeout/),
      });
    expect(await rpcError('base_transactionStatus', ['0x12'])).toMatchObject({ code: -32602 });
  });
});

describe('the waits as limits (--rpc-send-sync-timeout, --rpc-receipt-hold)', () => {
  let limited: TestNode;
  beforeAll(async () => {
    limited = await startTestNode({
      blockTime: 3,
      flashblockInterval: 200,
      limits: { ...defaultRpcLimits, sendSyncTimeoutMs: 400, receiptHoldMs: 0 },
    });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it("cuts eth_sendRawTransactionSync's timeout to the node's, and never holds a receipt with a hold of 0", async () => {
    const account = privateKeyToAccount(limited.accounts[0].privateKey);
    // A nonce gap: pooled (queued), never pre-confirmed.
    const gap = await account.signTransaction({
      to: '0x00000000000000000000000000000000000b0b04',
      value: 1n,
      nonce: 1,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337,
      type: 'eip1559',
    });
    let error: { code: number; message: string; data?: unknown } | undefined;
    const started = performance.now();
    await rpc(limited.url, 'eth_sendRawTransactionSync', [gap, 5000]).catch((e) => {
      error = e;
    });
    expect(performance.now() - started).toBeLessThan(2500);
    expect(error).toMatchObject({ code: 4, data: keccak256(gap), message: expect.stringMatching(/400 ms/) });
    // Flashblocks come every 200 ms, so the default would hold this answer ~820 ms.
    const asked = performance.now();
    expect(await rpc(limited.url, 'eth_getTransactionReceipt', [keccak256(gap)])).toBeNull();
    expect(performance.now() - asked).toBeLessThan(500);
  });
});

describe('pending everywhere: what was pre-confirmed a moment ago shows at `pending`, not at `latest`', () => {
  it('eth_call, eth_estimateGas, eth_simulateV1, state reads, block counts, receipts, logs and log filters', async () => {
    // A contract sealed before the test: set(42) will be pre-confirmed on it.
    const deployRaw = await sign(3, { data: bytecode, gas: 1_000_000n });
    const deployed = await rpc(node.url, 'eth_sendRawTransactionSync', [deployRaw]);
    const store = deployed.contractAddress as Hex;
    await waitFor(async () => {
      const r = await rpc(node.url, 'eth_getTransactionReceipt', [keccak256(deployRaw)]);
      return r.blockHash !== ZERO_HASH;
    }, 8000);
    const filter = await rpc(node.url, 'eth_newFilter', [{ address: store, toBlock: 'pending' }]);

    const latest = await afterSeal();
    const fresh = privateKeyToAccount(`0x${'7'.repeat(64)}`).address.toLowerCase();
    const sender = privateKeyToAccount(node.accounts[4].privateKey).address;
    const raws = [
      await sign(4, { to: store, data: encodeFunctionData({ abi, functionName: 'set', args: [42n] }) }),
      await sign(5, { to: fresh as Hex, value: 10n ** 18n, gas: 21000n }),
      await sign(6, { data: bytecode, gas: 1_000_000n }),
    ];
    const hashes = await Promise.all(raws.map((r) => rpc(node.url, 'eth_sendRawTransaction', [r])));
    await waitFor(async () => {
      const b = await rpc(node.url, 'eth_getBlockByNumber', ['pending', false]);
      return hashes.every((h) => b.transactions.includes(h));
    }, 2000);
    const newContract = (await rpc(node.url, 'eth_getTransactionReceipt', [hashes[2]])).contractAddress;
    const set7 = encodeFunctionData({ abi, functionName: 'set', args: [7n] });
    const getValue = { to: store, data: encodeFunctionData({ abi, functionName: 'value' }) };
    const at = (tag: string) => ({
      call: rpc(node.url, 'eth_call', [getValue, tag]),
      // set(7) on the contract deployed in the block being built: code runs only at `pending`.
      estimate: rpc(node.url, 'eth_estimateGas', [{ from: sender, to: newContract, data: set7 }, tag]),
      simulate: rpc(node.url, 'eth_simulateV1', [{ blockStateCalls: [{ calls: [getValue] }] }, tag]),
      balance: rpc(node.url, 'eth_getBalance', [fresh, tag]),
      nonce: rpc(node.url, 'eth_getTransactionCount', [sender, tag]),
      code: rpc(node.url, 'eth_getCode', [newContract, tag]),
      slot: rpc(node.url, 'eth_getStorageAt', [store, '0x0', tag]),
      count: rpc(node.url, 'eth_getBlockTransactionCountByNumber', [tag]),
      receipts: rpc(node.url, 'eth_getBlockReceipts', [tag]),
      logs: rpc(node.url, 'eth_getLogs', [{ address: store, fromBlock: quantity(latest), toBlock: tag }]),
    });
    const resolveAll = async (o: Record<string, Promise<any>>) =>
      Object.fromEntries(await Promise.all(Object.entries(o).map(async ([k, v]) => [k, await v])));
    const pending = await resolveAll(at('pending'));
    const sealed = await resolveAll(at('latest'));
    // All read inside the block's time: nothing was sealed meanwhile.
    expect(BigInt(await rpc(node.url, 'eth_blockNumber'))).toBe(latest);

    expect(BigInt(pending.call)).toBe(42n);
    expect(BigInt(sealed.call)).toBe(0n);
    expect(BigInt(pending.estimate)).toBeGreaterThan(40_000n); // an SSTORE from zero and a log
    expect(BigInt(sealed.estimate)).toBeLessThan(25_000n); // a call to an address without code
    expect(BigInt(pending.simulate[0].calls[0].returnData)).toBe(42n);
    expect(BigInt(sealed.simulate[0].calls[0].returnData)).toBe(0n);
    expect(BigInt(pending.simulate[0].number)).toBe(latest + 2n);
    expect(BigInt(pending.balance)).toBe(10n ** 18n);
    expect(BigInt(sealed.balance)).toBe(0n);
    expect(BigInt(pending.nonce)).toBe(BigInt(sealed.nonce) + 1n);
    expect(pending.code.length).toBeGreaterThan(2);
    expect(sealed.code).toBe('0x');
    expect(BigInt(pending.slot)).toBe(42n);
    expect(BigInt(sealed.slot)).toBe(0n);
    expect(BigInt(pending.count)).toBe(BigInt(3));
    expect(pending.receipts.map((r: { transactionHash: string }) => r.transactionHash).sort()).toEqual(
      [...hashes].sort(),
    );
    expect(sealed.receipts.map((r: { transactionHash: string }) => r.transactionHash)).not.toContain(
      hashes[0],
    );
    const setIndex = pending.receipts.findIndex(
      (r: { transactionHash: string }) => r.transactionHash === hashes[0],
    );
    const preLog = {
      address: store,
      blockHash: ZERO_HASH,
      blockNumber: quantity(latest + 1n),
      transactionHash: hashes[0],
      transactionIndex: quantity(setIndex),
      topics: [STORED, expect.any(String)],
    };
    expect(pending.logs).toEqual([expect.objectContaining(preLog)]);
    expect(sealed.logs).toEqual([]);

    // The filter to `pending` took the log when it was pre-confirmed ...
    const changes = await rpc(node.url, 'eth_getFilterChanges', [filter]);
    expect(changes).toEqual([expect.objectContaining(preLog)]);
    // ... and the seal does not give it again (same block number and log index).
    await afterSeal();
    expect(await rpc(node.url, 'eth_getFilterChanges', [filter])).toEqual([]);
    const [sealedLog] = await rpc(node.url, 'eth_getLogs', [
      { address: store, fromBlock: quantity(latest + 1n), toBlock: quantity(latest + 1n) },
    ]);
    expect(sealedLog).toMatchObject({ logIndex: changes[0].logIndex, transactionHash: hashes[0] });
    expect(sealedLog.blockHash).not.toBe(ZERO_HASH);
  });
});
