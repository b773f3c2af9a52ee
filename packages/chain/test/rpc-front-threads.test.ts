/**
 * Front threads (--rpc-threads, docs/decisions/0330-front-threads.md, 0400): a worker accepts the
 * connections and answers the common reads from its replica, the rest goes to the main thread.
 * Every request goes on a connection of its own, as clients open them; the answers
 * must be byte for byte those of a node with no front thread, a write seen on one connection
 * must be read on every other, hostile input gets the same errors, and a stopped node leaves
 * no thread behind. The worker runs the built package (dist/): `npm run build` first.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRpcLimits } from '../src/rpc/limits.js';
import { rpc, startTestNode, type TestNode, tempDir, waitFor } from './node-helpers.js';

const ACCOUNT = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const CONTRACT = '0x00000000000000000000000000000000c0ffee01';
const SLOT_VALUE = `0x${'2a'.padStart(64, '0')}`;

interface Answer {
  status: number;
  text: string;
}

/** One request on a connection of its own (keep-alive, as clients send: the lean front's path). */
function once(url: string, body: string | Buffer, method = 'POST'): Promise<Answer> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent, headers: method === 'POST' ? { 'content-type': 'application/json' } : {} },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? body : undefined);
  }).finally(() => agent.destroy());
}

const body = (method: string, params?: unknown, id: unknown = 1) =>
  JSON.stringify(
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
  );

async function counter(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new RegExp(`^${name} (\\d+)`, 'm').exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

/** Reads `request` on `n` new connections at once; every answer's result. */
async function spread(url: string, request: string, n = 16): Promise<unknown[]> {
  const answers = await Promise.all(Array.from({ length: n }, () => once(url, request)));
  return answers.map((a) => JSON.parse(a.text).result);
}

async function seed(node: TestNode): Promise<void> {
  await rpc(node.url, 'anvil_setCode', [CONTRACT, '0x6001600055']);
  await rpc(node.url, 'anvil_setStorageAt', [CONTRACT, '0x1', SLOT_VALUE]);
}

describe('front threads answer as the main thread does', () => {
  let threaded: TestNode;
  let single: TestNode;
  beforeAll(async () => {
    [threaded, single] = await Promise.all([
      startTestNode({ limits: { ...defaultRpcLimits, threads: 1 } }),
      startTestNode({ limits: { ...defaultRpcLimits, threads: 0 } }),
    ]);
    await Promise.all([seed(threaded), seed(single)]);
  });
  afterAll(async () => {
    await Promise.all([threaded?.stop(), single?.stop()]);
  });

  const requests: (string | Buffer)[] = [
    body('eth_chainId'),
    body('eth_chainId', []),
    body('net_version', null),
    body('web3_clientVersion', [], 'an id'),
    body('eth_getBalance', [ACCOUNT]),
    body('eth_getBalance', [ACCOUNT, 'latest'], null),
    body('eth_getBalance', [ACCOUNT.toUpperCase().replace('0X', '0x'), 'pending'], 7.5),
    body('eth_getBalance', [ACCOUNT, 'safe']),
    body('eth_getBalance', [ACCOUNT, '0x0']),
    body('eth_getBalance', [ACCOUNT, 'earliest']),
    body('eth_getBalance', [ACCOUNT, 'bogus']),
    body('eth_getBalance', [ACCOUNT, { blockNumber: '0x0' }]),
    body('eth_getBalance', ['0x1234']),
    body('eth_getBalance', []),
    body('eth_getBalance', [ACCOUNT, 'latest', 'extra']),
    body('eth_getBalance', { address: ACCOUNT }),
    body('eth_getTransactionCount', [ACCOUNT, 'latest']),
    body('eth_getTransactionCount', [ACCOUNT, 'pending']),
    body('eth_getCode', [CONTRACT, 'latest']),
    body('eth_getCode', [CONTRACT, 'pending']),
    body('eth_getCode', [ACCOUNT]),
    body('eth_getStorageAt', [CONTRACT, '0x1', 'latest']),
    body('eth_getStorageAt', [CONTRACT, '0x01', 'pending']),
    body('eth_getStorageAt', [CONTRACT, `0x${'1'.padStart(64, '0')}`]),
    body('eth_getStorageAt', [CONTRACT, '0x']),
    body('eth_getStorageAt', [CONTRACT, `0x${'1'.padStart(65, '0')}`]),
    body('eth_getStorageAt', [CONTRACT, '0xzz']),
    body('eth_getStorageAt', [CONTRACT]),
    // Notifications (204), envelopes the dispatcher refuses, batches, other methods.
    JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' }),
    JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'eth_chainId' }),
    JSON.stringify({ jsonrpc: '2.0', id: {}, method: 'eth_chainId' }),
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 5 }),
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [1] }),
    JSON.stringify([JSON.parse(body('eth_chainId')), JSON.parse(body('eth_getBalance', [ACCOUNT]))]),
    '[]',
    JSON.stringify(Array.from({ length: 1001 }, () => JSON.parse(body('eth_chainId')))),
    body('eth_noSuchMethod'),
    body('eth_getBlockByNumber', ['0x0', false]),
    '{"jsonrpc":"2.0",',
    'nope',
    '',
    Buffer.alloc(6 * 1024 * 1024, 0x20),
  ];

  it('gives the same status and bytes on every connection, for every request, many times', async () => {
    const acceptedBefore = await counter(threaded.url, 'wharf_rpc_front_thread_connections_total');
    const answeredBefore = await counter(threaded.url, 'wharf_rpc_front_thread_answers_total');
    for (const request of requests) {
      const expected = await once(single.url, request);
      const got = await Promise.all(Array.from({ length: 6 }, () => once(threaded.url, request)));
      const what = String(request).slice(0, 120);
      for (const g of got) {
        expect(g.status, what).toBe(expected.status);
        expect(g.text, what).toBe(expected.text);
      }
    }
    // Both threads took part: the worker accepted connections and answered reads itself.
    expect(await counter(threaded.url, 'wharf_rpc_front_thread_connections_total')).toBeGreaterThan(
      acceptedBefore + 10,
    );
    expect(await counter(threaded.url, 'wharf_rpc_front_thread_answers_total')).toBeGreaterThan(
      answeredBefore + 10,
    );
  });

  it('serves GET, OPTIONS and the block number on every connection', async () => {
    for (const method of ['GET', 'OPTIONS']) {
      const expected = await once(single.url, '', method);
      for (const g of await Promise.all(Array.from({ length: 6 }, () => once(threaded.url, '', method)))) {
        expect(g.status).toBe(expected.status);
        expect(g.text).toBe(expected.text);
      }
    }
    const head = await rpc(threaded.url, 'eth_blockNumber');
    expect(new Set(await spread(threaded.url, body('eth_blockNumber')))).toEqual(new Set([head]));
  });
});

describe('a write seen on one connection is read on every other', () => {
  let node: TestNode;
  beforeAll(async () => {
    // Interval mode: pre-confirmations every 200 ms, a block every second.
    node = await startTestNode({ blockTime: 1, limits: { ...defaultRpcLimits, threads: 1 } });
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('after a pre-confirmation, a seal, a set balance or slot, and a revert', async () => {
    const to = `0x${'ab'.repeat(19)}01`;
    const balance = (tag: string) => body('eth_getBalance', [to, tag]);
    const slot = (tag: string) => body('eth_getStorageAt', [to, '0x7', tag]);
    const zero = `0x${'0'.repeat(64)}`;
    // Every thread has the old values cached.
    expect(new Set(await spread(node.url, balance('latest')))).toEqual(new Set(['0x0']));
    expect(new Set(await spread(node.url, balance('pending')))).toEqual(new Set(['0x0']));
    expect(new Set(await spread(node.url, slot('latest')))).toEqual(new Set([zero]));
    const snapshot = await rpc(node.url, 'evm_snapshot');

    await rpc(node.url, 'eth_sendTransaction', [{ from: ACCOUNT, to, value: '0x3e8' }]);
    // A client sees the pre-confirmation on one connection: every other shows it at once.
    await waitFor(async () => (await rpc(node.url, 'eth_getBalance', [to, 'pending'])) === '0x3e8');
    expect(new Set(await spread(node.url, balance('pending')))).toEqual(new Set(['0x3e8']));
    // And the block once it is sealed.
    await waitFor(async () => (await rpc(node.url, 'eth_getBalance', [to, 'latest'])) === '0x3e8');
    expect(new Set(await spread(node.url, balance('latest')))).toEqual(new Set(['0x3e8']));
    expect(new Set(await spread(node.url, body('eth_blockNumber')))).toEqual(
      new Set([await rpc(node.url, 'eth_blockNumber')]),
    );

    await rpc(node.url, 'anvil_setBalance', [to, '0x5']);
    await rpc(node.url, 'anvil_setStorageAt', [to, '0x7', SLOT_VALUE]);
    await waitFor(async () => (await rpc(node.url, 'eth_getBalance', [to, 'pending'])) === '0x5');
    expect(new Set(await spread(node.url, balance('pending')))).toEqual(new Set(['0x5']));
    await waitFor(
      async () => (await rpc(node.url, 'eth_getStorageAt', [to, '0x7', 'latest'])) === SLOT_VALUE,
    );
    expect(new Set(await spread(node.url, slot('latest')))).toEqual(new Set([SLOT_VALUE]));
    expect(new Set(await spread(node.url, balance('latest')))).toEqual(new Set(['0x5']));

    // Reverted: what the call's answer says is gone is gone on every connection.
    expect(await rpc(node.url, 'evm_revert', [snapshot])).toBe(true);
    const latest = await rpc(node.url, 'eth_getBalance', [to, 'latest']);
    expect(latest).toBe('0x0');
    expect(new Set(await spread(node.url, balance('latest')))).toEqual(new Set(['0x0']));
    expect(new Set(await spread(node.url, balance('pending')))).toEqual(new Set(['0x0']));
    expect(new Set(await spread(node.url, slot('latest')))).toEqual(new Set([zero]));
  });

  it('serves WebSockets on every connection, subscriptions included', async () => {
    const sockets = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const ws = new WebSocket(node.wsUrl);
        await new Promise((r, j) => ws.once('open', r).once('error', j));
        return ws;
      }),
    );
    try {
      const heads = sockets.map(
        (ws) =>
          new Promise<string>((resolve) => {
            ws.on('message', (d) => {
              const m = JSON.parse(d.toString());
              if (m.method === 'eth_subscription') resolve(m.params.result.number);
            });
          }),
      );
      const ids = await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<unknown>((resolve) => {
              ws.once('message', (d) => resolve(JSON.parse(d.toString()).result));
              ws.send(body('eth_subscribe', ['newHeads']));
            }),
        ),
      );
      for (const id of ids) expect(id).toMatch(/^0x[0-9a-f]+$/);
      const numbers = await Promise.all(heads);
      for (const n of numbers) expect(n).toMatch(/^0x[0-9a-f]+$/);
    } finally {
      for (const ws of sockets) ws.terminate();
    }
  });
});

describe('stopping', () => {
  it('stops the worker: the process exits by itself once the node is closed', async () => {
    const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist/index.js');
    const script = `
      const { startChainNode, defaultChainNodeOptions } = await import(${JSON.stringify(dist)});
      const fs = await import('node:fs'); const os = await import('node:os'); const path = await import('node:path');
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-front-stop-'));
      const node = await startChainNode({ ...defaultChainNodeOptions, host: '127.0.0.1', port: 0, dataDir,
        limits: { ...defaultChainNodeOptions.limits, threads: 1 } });
      const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(node.url, { method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }) }).then((r) => r.json())));
      await node.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      console.log(JSON.stringify({ answers: answers.map((a) => a.result) }));
    `;
    // A file, not `-e`: the node's eval'd workers (the journal's) are CommonJS.
    const file = path.join(tempDir('wharf-front-stop-'), 'stop.mjs');
    fs.writeFileSync(file, script);
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve(null);
      }, 20_000);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
    expect(code, 'the process did not exit within 20 s of closing the node').toBe(0);
    expect(JSON.parse(out).answers).toEqual(Array(8).fill('0x7a69'));
  });
});
