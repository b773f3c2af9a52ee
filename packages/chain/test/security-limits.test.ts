/**
 * Issue 29, finding 6: per-client state on the chain node is bounded, and each limit answers a
 * clear error naming it: filters per connection and their expiry, subscriptions per WebSocket,
 * eth_getLogs's list sizes, block range and results, slow WebSocket readers, slow HTTP clients.
 */
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { defaultRpcLimits, type RpcLimits } from '../src/rpc/limits.js';
import { rpc, rpcRaw, startTestNode, type TestNode, waitFor } from './node-helpers.js';
import { timedCall } from './security-helpers.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});

async function nodeWith(limits: Partial<RpcLimits>, blockTime = 0): Promise<TestNode> {
  const node = await startTestNode({ blockTime, limits: { ...defaultRpcLimits, ...limits } });
  nodes.push(node);
  return node;
}

const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
const topic = (i: number) => `0x${i.toString(16).padStart(64, '0')}`;

/** A WebSocket JSON-RPC client: call() answers by id; messages counted. */
async function wsClient(url: string) {
  const ws = new WebSocket(url);
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  let id = 0;
  const waiting = new Map<number, (m: any) => void>();
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (m.id !== undefined) waiting.get(m.id)?.(m);
  });
  return {
    ws,
    call(method: string, params: unknown[] = []): Promise<any> {
      const n = ++id;
      return new Promise((resolve) => {
        waiting.set(n, resolve);
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: n, method, params }));
      });
    },
  };
}

describe('per-client limits', () => {
  it("has geth's defaults", () => {
    expect(defaultRpcLimits).toMatchObject({
      maxFilters: 1_000,
      filterTimeoutMs: 300_000,
      maxSubscriptions: 1_000,
      logsMaxBlockRange: 10_000,
      logsMaxResults: 10_000,
    });
  });

  it('refuses eth_getLogs with 100,000 addresses at once, naming the limit', async () => {
    const node = await nodeWith({});
    const addresses = Array.from({ length: 100_000 }, (_, i) => address(i));
    const r = await timedCall(node.url, 'eth_getLogs', [{ fromBlock: '0x0', address: addresses }]);
    expect(r.error).toEqual({
      code: -32602,
      message:
        'invalid argument 0: too many addresses in filter: 100000, at most 1000 (--rpc-logs-max-addresses)',
    });
    expect(r.ms).toBeLessThan(1_500);
    const topics = await timedCall(node.url, 'eth_getLogs', [
      { topics: [Array.from({ length: 1001 }, (_, i) => topic(i))] },
    ]);
    expect(topics.error).toEqual({
      code: -32602,
      message:
        'invalid argument 0: too many topics in filter position: 1001, at most 1000 (--rpc-logs-max-topics)',
    });
    // The same lists in a filter and a subscription.
    const filter = await timedCall(node.url, 'eth_newFilter', [{ address: addresses }]);
    expect(filter.error?.message).toMatch(/too many addresses in filter: 100000/);
  });

  it('caps the block range and the results of eth_getLogs', async () => {
    const node = await nodeWith({ logsMaxBlockRange: 2, logsMaxResults: 3 });
    const from = node.accounts[0].address;
    // A contract whose every call logs four times (PUSH0 PUSH0 LOG0, x4).
    const runtime = `${'5f5fa0'.repeat(4)}00`;
    const init = `0x61${(runtime.length / 2).toString(16).padStart(4, '0')}80600a5f395ff3${runtime}`;
    const deployed = await rpc(node.url, 'eth_sendTransaction', [{ from, data: init }]);
    const { contractAddress } = await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [deployed]));
    const call = await rpc(node.url, 'eth_sendTransaction', [{ from, to: contractAddress }]);
    const receipt = await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [call]));

    const range = await timedCall(node.url, 'eth_getLogs', [
      { fromBlock: '0x0', toBlock: receipt.blockNumber },
    ]);
    expect(range.error).toEqual({
      code: -32000,
      message: `block range too large: ${Number(receipt.blockNumber) + 1} blocks, at most 2 (--rpc-logs-block-range)`,
    });
    const many = await timedCall(node.url, 'eth_getLogs', [{ fromBlock: receipt.blockNumber }]);
    expect(many.error).toEqual({ code: -32000, message: 'query returned more than 3 results' });
    const byHash = await timedCall(node.url, 'eth_getLogs', [{ blockHash: receipt.blockHash }]);
    expect(byHash.error).toEqual({ code: -32000, message: 'query returned more than 3 results' });
  });

  it('caps filters per connection, and removes those nobody polls', async () => {
    const node = await nodeWith({ maxFilters: 3, filterTimeoutMs: 1_500 });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await rpc(node.url, 'eth_newBlockFilter'));
    const refused = await timedCall(node.url, 'eth_newBlockFilter', []);
    expect(refused.error).toEqual({
      code: -32000,
      message:
        'too many filters: at most 3 per connection (--rpc-max-filters); uninstall some or let them expire',
    });
    expect(await rpc(node.url, 'eth_uninstallFilter', [ids[0]])).toBe(true);
    ids[0] = await rpc(node.url, 'eth_newBlockFilter');

    // A WebSocket counts its own, and they go with it.
    const client = await wsClient(node.wsUrl);
    for (let i = 0; i < 3; i++)
      expect((await client.call('eth_newPendingTransactionFilter')).result).toMatch(/^0x/);
    expect((await client.call('eth_newPendingTransactionFilter')).error.message).toMatch(/^too many filters/);
    client.ws.close();

    // Polled ones stay; the others expire after the timeout (geth: 5 minutes).
    const deadline = Date.now() + 2_500;
    while (Date.now() < deadline) {
      await rpc(node.url, 'eth_getFilterChanges', [ids[1]]);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(Array.isArray(await rpc(node.url, 'eth_getFilterChanges', [ids[1]]))).toBe(true);
    const gone = await timedCall(node.url, 'eth_getFilterChanges', [ids[2]]);
    expect(gone.error).toEqual({ code: -32000, message: 'filter not found' });
  });

  it('caps subscriptions per WebSocket at 1,000 and drops a reader that does not read', async () => {
    const node = await nodeWith({ wsMaxBufferedBytes: 256 * 1024 }, 1);
    const client = await wsClient(node.wsUrl);
    const subs = await Promise.all(
      Array.from({ length: 1000 }, () => client.call('eth_subscribe', ['newFlashblocks', true])),
    );
    expect(subs.every((s) => typeof s.result === 'string')).toBe(true);
    const over = await client.call('eth_subscribe', ['newHeads']);
    expect(over.error).toEqual({
      code: -32000,
      message: 'too many subscriptions: at most 1000 per connection (--rpc-max-subscriptions)',
    });
    // 1,000 pending blocks every flashblock, and the client stops reading: once the socket's
    // buffers are full the node's own buffer grows past 256 KiB and the node lets it go.
    const closed = new Promise<number>((r) => client.ws.once('close', r));
    client.ws.pause();
    await new Promise((r) => setTimeout(r, 4_000));
    client.ws.resume();
    const outcome = await Promise.race([closed, new Promise((r) => setTimeout(() => r('open'), 5_000))]);
    expect(outcome).toBe(1006);
    expect(await rpc(node.url, 'eth_blockNumber')).toMatch(/^0x/);
  }, 30_000);

  it('closes an HTTP request whose body trickles in, and one whose headers never end', async () => {
    const node = await nodeWith({ httpHeadersTimeoutMs: 500, httpRequestTimeoutMs: 1_000 });
    const port = Number(new URL(node.url).port);
    const trickle = (what: 'body' | 'headers') =>
      new Promise<{ ms: number; reply: string }>((resolve) => {
        const t0 = performance.now();
        const s = net.connect(port, '127.0.0.1');
        let reply = '';
        s.on('data', (d) => {
          reply += d;
        });
        s.on('error', () => {});
        const timer = setInterval(() => s.writable && s.write(what === 'body' ? ' ' : 'x'), 200);
        s.on('close', () => {
          clearInterval(timer);
          resolve({ ms: performance.now() - t0, reply });
        });
        if (what === 'body')
          s.write(
            'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n',
          );
        else s.write('POST / HTTP/1.1\r\nX-Slow: ');
      });
    const [body, headers] = await Promise.all([trickle('body'), trickle('headers')]);
    expect(body.reply).toMatch(/^HTTP\/1\.1 408/);
    expect(body.ms).toBeLessThan(3_000);
    expect(headers.reply).toMatch(/^HTTP\/1\.1 408/);
    expect(headers.ms).toBeLessThan(3_000);
    expect((await rpcRaw(node.url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' })).json.result).toBe(
      '0x7a69',
    );
  });
});
