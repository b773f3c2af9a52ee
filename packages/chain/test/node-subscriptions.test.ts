/** WebSocket JSON-RPC and subscriptions (newHeads, logs, newPendingTransactions), polling filters, pending reads. */
import { createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { compileStore } from './node-contract.js';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ blockTime: 0 });
});
afterAll(async () => {
  await node?.stop();
});

function wallet(i: number) {
  const chain = {
    id: 31337,
    name: 'wharf',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  } as const;
  return createWalletClient({
    chain,
    transport: http(node.url),
    account: privateKeyToAccount(node.accounts[i].privateKey),
  });
}

async function openSocket(url: string) {
  const ws = new WebSocket(url);
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  let id = 0;
  const request = async (method: string, params: unknown[] = []) => {
    const myId = ++id;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: myId, method, params }));
    const res = await waitFor(async () => messages.find((m) => m.id === myId));
    return res;
  };
  return { ws, messages, request };
}

describe('websocket', () => {
  it('answers requests and pushes newHeads, logs and pending transactions', async () => {
    const { ws, messages, request } = await openSocket(node.wsUrl);
    try {
      expect((await request('eth_chainId')).result).toBe('0x7a69');
      const heads = (await request('eth_subscribe', ['newHeads'])).result;
      const pendingTxs = (await request('eth_subscribe', ['newPendingTransactions'])).result;
      const { abi, bytecode } = compileStore();
      const w = wallet(5);
      const deployHash = await w.deployContract({ abi, bytecode });
      const receipt = await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [deployHash]));
      const logsSub = (await request('eth_subscribe', ['logs', { address: receipt.contractAddress }])).result;
      const setHash = await w.writeContract({
        address: receipt.contractAddress,
        abi,
        functionName: 'set',
        args: [5n],
      });
      const log = await waitFor(async () =>
        messages.find((m) => m.method === 'eth_subscription' && m.params.subscription === logsSub),
      );
      expect(log.params.result.transactionHash).toBe(setHash);
      expect(BigInt(log.params.result.data)).toBe(5n);
      const head = messages.find((m) => m.params?.subscription === heads);
      expect(head.params.result.number).toMatch(/^0x/);
      expect(head.params.result.hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(
        messages.some((m) => m.params?.subscription === pendingTxs && m.params.result === deployHash),
      ).toBe(true);
      expect((await request('eth_unsubscribe', [heads])).result).toBe(true);
      expect((await request('eth_unsubscribe', [heads])).result).toBe(false);
      ws.send('{bad json');
      expect((await waitFor(async () => messages.find((m) => m.error?.code === -32700))).id).toBeNull();
    } finally {
      ws.close();
    }
  });

  it('refuses subscriptions over HTTP', async () => {
    await expect(rpc(node.url, 'eth_subscribe', ['newHeads'])).rejects.toMatchObject({ code: -32000 });
  });
});

describe('filters', () => {
  it('collects new blocks and logs between polls', async () => {
    const blocks = await rpc(node.url, 'eth_newBlockFilter');
    const pendingFilter = await rpc(node.url, 'eth_newPendingTransactionFilter');
    const hash = await wallet(6).sendTransaction({
      to: '0x000000000000000000000000000000000000f11e',
      value: parseEther('1'),
    });
    await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [hash]));
    const changes = await rpc(node.url, 'eth_getFilterChanges', [blocks]);
    expect(changes.length).toBeGreaterThanOrEqual(1);
    expect(await rpc(node.url, 'eth_getFilterChanges', [blocks])).toEqual([]);
    expect(await rpc(node.url, 'eth_getFilterChanges', [pendingFilter])).toContain(hash);
    expect(await rpc(node.url, 'eth_uninstallFilter', [blocks])).toBe(true);
    await expect(rpc(node.url, 'eth_getFilterChanges', [blocks])).rejects.toMatchObject({ code: -32000 });
  });

  it('answers pending reads from the block being built', async () => {
    const slow = await startTestNode({ blockTime: 3600, flashblockInterval: 50 });
    try {
      const to = '0x000000000000000000000000000000000000a11c';
      const hash = await rpc(slow.url, 'eth_sendRawTransaction', [
        await wallet(7).signTransaction({
          to,
          value: 123n,
          nonce: 0,
          gas: 21000n,
          maxFeePerGas: 10_000_000_000n,
          maxPriorityFeePerGas: 1n,
          chain: {
            id: 31337,
            name: 'w',
            nativeCurrency: { name: 'E', symbol: 'E', decimals: 18 },
            rpcUrls: { default: { http: [slow.url] } },
          },
        }),
      ]);
      await waitFor(async () => (await rpc(slow.url, 'eth_getBalance', [to, 'pending'])) === '0x7b');
      expect(await rpc(slow.url, 'eth_getBalance', [to, 'latest'])).toBe('0x0');
      const pending = await rpc(slow.url, 'eth_getBlockByNumber', ['pending', false]);
      expect(pending.transactions).toEqual([hash]);
      // Base's shape: the number being built (genesis is the head) and the zero hash.
      expect(pending.number).toBe('0x1');
      expect(pending.hash).toBe(`0x${'0'.repeat(64)}`);
      expect(pending.gasUsed).toBe('0x5208');
      const tx = await rpc(slow.url, 'eth_getTransactionByHash', [hash]);
      expect(tx.blockHash).toBeNull();
      expect(tx.blockNumber).toBe('0x1');
      expect(
        await rpc(slow.url, 'eth_getTransactionCount', [
          privateKeyToAccount(node.accounts[7].privateKey).address,
          'pending',
        ]),
      ).toBe('0x1');
    } finally {
      await slow.stop();
    }
  });
});
