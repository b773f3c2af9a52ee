/**
 * Base's per-item subscriptions under load: a WebSocket client subscribed to
 * newFlashblockTransactions (hashes, and full with logs) and pendingLogs while 2,000
 * transactions, each emitting one log, are sent at 500/s from 100 senders. Every hash comes
 * exactly once, every log exactly once, across flashblocks and seals.
 */
import { encodeFunctionData, type Hex, keccak256 } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { compileStore } from './node-contract.js';
import { rpc, rpcRaw, startTestNode, type TestNode, waitFor } from './node-helpers.js';

const TOTAL = 2000;
const RATE = 500; // per second
const SENDERS = 100;
const ZERO_HASH = `0x${'0'.repeat(64)}`;
const { abi, bytecode } = compileStore();

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ blockTime: 2, flashblockInterval: 200 });
});
afterAll(async () => {
  await node?.stop();
});

const fee = {
  maxFeePerGas: 10_000_000_000n,
  maxPriorityFeePerGas: 1n,
  chainId: 31337,
  type: 'eip1559',
} as const;

async function sealedReceipt(hash: string) {
  return waitFor(async () => {
    const r = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
    return r && r.blockHash !== ZERO_HASH ? r : undefined;
  }, 15_000);
}

describe('newFlashblockTransactions and pendingLogs over 2,000 transactions at 500/s', () => {
  it('delivers every hash exactly once and every log exactly once', async () => {
    // A contract whose set() emits one log, and 100 funded senders (10 per dev account).
    const deployer = privateKeyToAccount(node.accounts[0].privateKey);
    const deployRaw = await deployer.signTransaction({ data: bytecode, nonce: 0, gas: 1_000_000n, ...fee });
    const store = (await sealedReceipt(await rpc(node.url, 'eth_sendRawTransaction', [deployRaw])))
      .contractAddress as Hex;
    const senders = Array.from({ length: SENDERS }, () => privateKeyToAccount(generatePrivateKey()));
    const funding: string[] = [];
    for (let i = 0; i < SENDERS; i++) {
      const dev = privateKeyToAccount(node.accounts[i % 10].privateKey);
      const nonce = Math.floor(i / 10) + (i % 10 === 0 ? 1 : 0);
      const raw = await dev.signTransaction({
        to: senders[i].address,
        value: 10n ** 18n,
        nonce,
        gas: 21000n,
        ...fee,
      });
      funding.push(await rpc(node.url, 'eth_sendRawTransaction', [raw]));
    }
    await sealedReceipt(funding[funding.length - 1]);
    await Promise.all(funding.map(sealedReceipt));

    // Signed ahead: sender i sends its k-th transaction as number k * SENDERS + i.
    const raws: Hex[] = [];
    for (let n = 0; n < TOTAL; n++) {
      const sender = senders[n % SENDERS];
      raws.push(
        await sender.signTransaction({
          to: store,
          data: encodeFunctionData({ abi, functionName: 'set', args: [BigInt(n)] }),
          nonce: Math.floor(n / SENDERS),
          gas: 100_000n,
          ...fee,
        }),
      );
    }
    const sent = new Set(raws.map((r) => keccak256(r)));

    const ws = new WebSocket(node.wsUrl);
    await new Promise((r, j) => {
      ws.once('open', r);
      ws.once('error', j);
    });
    const byId = new Map<number, string>();
    const items: Record<string, any[]> = { hashes: [], full: [], logs: [] };
    const kinds = new Map<string, string>();
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      if (m.id !== undefined) kinds.set(m.result, byId.get(m.id)!);
      else if (m.method === 'eth_subscription')
        items[kinds.get(m.params.subscription)!].push(m.params.result);
    });
    const subscribe = (id: number, kind: string, params: unknown[]) => {
      byId.set(id, kind);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params }));
    };
    try {
      subscribe(1, 'hashes', ['newFlashblockTransactions']);
      subscribe(2, 'full', ['newFlashblockTransactions', true]);
      subscribe(3, 'logs', ['pendingLogs', { address: store }]);
      await waitFor(async () => kinds.size === 3);

      // 500/s: a JSON-RPC batch of 10 every 20 ms, on its own schedule.
      const started = performance.now();
      const answers: Promise<{ json: any }>[] = [];
      for (let i = 0; i < TOTAL; i += 10) {
        const due = started + (i / RATE) * 1000;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        answers.push(
          rpcRaw(
            node.url,
            raws.slice(i, i + 10).map((raw, k) => ({
              jsonrpc: '2.0',
              id: i + k,
              method: 'eth_sendRawTransaction',
              params: [raw],
            })),
          ),
        );
      }
      const results = (await Promise.all(answers)).flatMap((a) => a.json);
      expect(results.filter((r: { error?: unknown }) => r.error)).toEqual([]);

      await waitFor(async () => items.hashes.length >= TOTAL && items.logs.length >= TOTAL, 30_000);
      // Past the seal of the last of them, and one more flashblock: nothing comes twice.
      const last = await sealedReceipt(keccak256(raws[raws.length - 1]));
      await waitFor(
        async () => BigInt(await rpc(node.url, 'eth_blockNumber')) > BigInt(last.blockNumber),
        5000,
      );
      await new Promise((r) => setTimeout(r, 300));

      expect(items.hashes.length).toBe(TOTAL);
      expect(new Set(items.hashes)).toEqual(sent);
      expect(items.full.length).toBe(TOTAL);
      expect(new Set(items.full.map((t) => t.hash))).toEqual(sent);
      expect(items.full.every((t) => t.blockHash === null && t.blockNumber && t.logs.length === 1)).toBe(
        true,
      );

      expect(items.logs.length).toBe(TOTAL);
      const logKeys = new Set(items.logs.map((l) => `${l.blockNumber}:${l.logIndex}`));
      expect(logKeys.size).toBe(TOTAL);
      expect(new Set(items.logs.map((l) => l.transactionHash))).toEqual(sent);
      expect(items.logs.every((l) => l.address === store && l.blockHash === ZERO_HASH)).toBe(true);

      // A pre-confirmed log is the sealed log but for the block's hash.
      const sample = items.logs[TOTAL - 1];
      const sealedLogs = await rpc(node.url, 'eth_getLogs', [
        { address: store, fromBlock: sample.blockNumber, toBlock: sample.blockNumber },
      ]);
      const same = sealedLogs.find((l: { logIndex: string }) => l.logIndex === sample.logIndex);
      expect({ ...same, blockHash: ZERO_HASH }).toEqual(sample);
      // The full form's logs are the pendingLogs ones.
      const fullOfSample = items.full.find((t) => t.hash === sample.transactionHash);
      expect(fullOfSample.logs).toEqual([sample]);
    } finally {
      ws.terminate();
    }
  }, 120_000);
});
