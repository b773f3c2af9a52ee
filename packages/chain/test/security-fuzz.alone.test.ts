/**
 * Issue 29: a fuzz pass of hostile JSON-RPC against a node in its own process (so the load
 * generator does not share its thread): bad JSON, invalid envelopes, unknown methods with odd
 * names, every method's first argument replaced by a hostile value (huge numbers, deep nesting,
 * giant arrays, wrong types, broken unicode), oversized batches and bodies, slow bodies, and the
 * same over WebSocket. The node must stay alive, answer every request with a well-formed
 * JSON-RPC error (or an HTTP error for oversized or slow bodies), never an internal error, and
 * publish no flashblock more than 50 ms late (its own metrics). A file that runs alone: that bound
 * is the node's, and other test files beside it on two cores made one flashblock 50 ms late in CI.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type ChildNode, killChildNodes, startChildNode, tempDir } from './node-helpers.js';
import { rng } from './rng.js';
import { flashblockLateness } from './security-helpers.js';

const SEED = 29;
let node: ChildNode;

beforeAll(async () => {
  node = await startChildNode(tempDir(), 1, {
    WHARF_TEST_LIMITS: JSON.stringify({ httpRequestTimeoutMs: 2_000 }),
  });
});
afterAll(() => killChildNodes());

/** Methods whose first argument must be a string or an object of a given shape. */
const STRING_ARG = [
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByNumber',
  'eth_getRawTransactionByHash',
  'eth_sendRawTransaction',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_unsubscribe',
  'debug_traceTransaction',
  'debug_traceBlockByNumber',
  'debug_traceBlockByHash',
  'debug_getRawBlock',
  'eth_getProof',
];
const CALL_ARG = ['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1'];
const FILTER_ARG = ['eth_getLogs', 'eth_newFilter'];
type ArgKind = 'string' | 'call' | 'filter';

/** Objects each refused where an object is expected (unknown fields alone are ignored, as geth). */
const HOSTILE_OBJECTS: Record<Exclude<ArgKind, 'string'>, string[]> = {
  call: [
    '"0x00"',
    '[{}]',
    `{"gas":"0x${'f'.repeat(80)}","data":"0xzz"}`,
    '{"from":"0x1","to":12,"value":-1}',
    '{"to":"0x0000000000000000000000000000000000000001","data":"0x0"}',
  ],
  filter: [
    '"0x00"',
    '[{}]',
    '{"address":[1,2,3]}',
    '{"topics":[[[]]]}',
    '{"fromBlock":"0xzz"}',
    '{"blockHash":"0x00"}',
    '{"toBlock":1e400}',
  ],
};

function deep(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** Hostile values as JSON text (some are not what JSON.stringify would write). */
function hostileValue(r: () => number, kind: ArgKind): string {
  if (kind !== 'string' && r() < 0.5) {
    const list = HOSTILE_OBJECTS[kind];
    return list[Math.floor(r() * list.length)];
  }
  const pick = Math.floor(r() * 10);
  switch (pick) {
    case 0:
      return '1e400';
    case 1:
      return String(-Math.floor(r() * 1e15));
    case 2:
      return JSON.stringify(`0x${'f'.repeat(1 + Math.floor(r() * 20_000))}1g`);
    case 3:
      return JSON.stringify(`0x${'zz'.repeat(Math.floor(r() * 10))}`);
    case 4:
      return '"\\ud800\\udc00\\ud800 🤖\\u0000 latest"';
    case 5:
      return deep(1 + Math.floor(r() * 3_000));
    case 6:
      return `[${'0,'.repeat(Math.floor(r() * 20_000))}0]`;
    case 7:
      return 'true';
    case 8:
      return '123456789012345678901234567890123456789';
    case 9:
      return kind === 'string' ? '{"__proto__":{"polluted":1},"constructor":{"prototype":1}}' : '0.5';
    default:
      return '"pending\\u202e"';
  }
}

/** One request as JSON text that no method may answer with a result. */
function hostileRequest(r: () => number, id: number): string {
  const kind = Math.floor(r() * 10);
  if (kind < 6) {
    const x = r();
    const kind: ArgKind = x < 0.2 ? 'call' : x < 0.35 ? 'filter' : 'string';
    const list = kind === 'call' ? CALL_ARG : kind === 'filter' ? FILTER_ARG : STRING_ARG;
    const method = list[Math.floor(r() * list.length)];
    return `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":[${hostileValue(r, kind)}]}`;
  }
  if (kind === 6) return `{"jsonrpc":"1.0","id":${id},"method":"eth_blockNumber","params":[]}`;
  if (kind === 7)
    return `{"jsonrpc":"2.0","id":${id},"method":"eth_${'\\ud83e\\udd16'.repeat(Math.floor(r() * 50))}x${'a'.repeat(Math.floor(r() * 5_000))}"}`;
  if (kind === 8) return `{"jsonrpc":"2.0","id":${id},"method":"eth_blockNumber","params":{"a":1}}`;
  return `{"jsonrpc":"2.0","id":${id},"method":${Math.floor(r() * 1e6)},"params":[]}`;
}

/** Bodies that are not JSON at all. */
function garbage(r: () => number): Buffer {
  const kind = Math.floor(r() * 5);
  if (kind === 0) return Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"');
  if (kind === 1)
    return Buffer.from(Array.from({ length: 1 + Math.floor(r() * 2000) }, () => Math.floor(r() * 256)));
  if (kind === 2) return Buffer.from(`${'{"a":'.repeat(5_000)}`);
  if (kind === 3) return Buffer.from([0xef, 0xbb, 0xbf, 0xc3, 0x28, 0x7b, 0x7d]);
  return Buffer.from('');
}

function wellFormedError(m: any): boolean {
  return (
    m?.jsonrpc === '2.0' &&
    'id' in m &&
    !('result' in m) &&
    Number.isInteger(m.error?.code) &&
    m.error.code !== -32603 &&
    typeof m.error.message === 'string'
  );
}

async function post(body: Buffer | string): Promise<{ status: number; json: any }> {
  const res = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

/** A body sent a byte at a time, slower than the node's request timeout (2 s here). */
function slowBody(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let reply = '';
    s.on('data', (d) => {
      reply += d;
    });
    s.on('error', () => {});
    s.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const timer = setInterval(() => s.writable && s.write(' '), 300);
    s.on('close', () => {
      clearInterval(timer);
      resolve(reply);
    });
  });
}

describe('fuzz: hostile JSON-RPC against a running node', () => {
  it('answers 10,000+ hostile requests with well-formed errors, stays alive, publishes on time', async () => {
    const r = rng(SEED);
    const before = await flashblockLateness(node.url);
    const t0 = performance.now();
    const bad: unknown[] = [];
    let requests = 0;
    let nextId = 1;

    // 1. Batches of hostile requests, 4 connections at a time: 160 x 50 = 8,000.
    const batches = Array.from({ length: 160 }, () =>
      Array.from({ length: 50 }, () => hostileRequest(r, nextId++)),
    );
    const runBatch = async (batch: string[]) => {
      const { status, json } = await post(`[${batch.join(',')}]`);
      requests += batch.length;
      if (status !== 200 || !Array.isArray(json) || json.length !== batch.length)
        bad.push({ status, json, batch: batch[0] });
      else
        for (const [i, m] of json.entries())
          if (!wellFormedError(m)) bad.push({ m, req: batch[i].slice(0, 300) });
    };
    // 2. Bodies that are not JSON: 1,000, one request each.
    const garbageBodies = Array.from({ length: 1_000 }, () => garbage(r));
    const runGarbage = async (b: Buffer) => {
      const { status, json } = await post(b);
      requests++;
      if (status !== 200 || !wellFormedError(json) || json.error.code !== -32700) bad.push({ status, json });
    };
    const lanes = 4;
    const work: (() => Promise<void>)[] = [
      ...batches.map((b) => () => runBatch(b)),
      ...garbageBodies.map((b) => () => runGarbage(b)),
    ];
    // Interleaved, so that every kind runs while flashblocks are built.
    work.sort(() => r() - 0.5);
    let at = 0;
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (at < work.length) await work[at++]();
      }),
    );

    // 3. Oversized: batches of 1,001 (-32600) and bodies over 5 MiB (HTTP 413).
    for (let i = 0; i < 10; i++) {
      const batch = `[${Array.from({ length: 1001 }, () => '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}').join(',')}]`;
      const { status, json } = await post(batch);
      requests += 1001;
      if (status !== 200 || !wellFormedError(json) || json.error.code !== -32600) bad.push({ status, json });
    }
    for (let i = 0; i < 3; i++) {
      const { status, json } = await post(`[${'"x",'.repeat(1_500_000)}"x"]`);
      requests++;
      if (status !== 413 || !wellFormedError(json)) bad.push({ status, json });
    }

    // 4. Over WebSocket: 1,000 hostile messages; every one answered with an error.
    const ws = new WebSocket(node.wsUrl);
    await new Promise((res, rej) => ws.once('open', res).once('error', rej));
    let answers = 0;
    ws.on('message', (d) => {
      answers++;
      const m = JSON.parse(d.toString());
      if (!wellFormedError(m)) bad.push({ ws: m });
    });
    for (let i = 0; i < 1_000; i++) ws.send(i % 5 === 0 ? garbage(r) : hostileRequest(r, nextId++));
    requests += 1_000;
    const wsDeadline = Date.now() + 20_000;
    while (answers < 1_000 && Date.now() < wsDeadline) await new Promise((res) => setTimeout(res, 50));
    expect(answers).toBe(1_000);
    ws.close();

    // 5. Slow bodies: cut off at the request timeout with HTTP 408.
    const port = Number(new URL(node.url).port);
    const slow = await Promise.all(Array.from({ length: 5 }, () => slowBody(port)));
    requests += 5;
    for (const reply of slow) if (!/^HTTP\/1\.1 408/.test(reply)) bad.push({ slow: reply.slice(0, 100) });

    const wall = performance.now() - t0;
    const after = await flashblockLateness(node.url);
    // The first few, with the request that drew them, if any.
    expect(bad.slice(0, 5)).toEqual([]);
    expect(requests).toBeGreaterThanOrEqual(10_000);
    expect(node.child.exitCode).toBe(null);
    const alive = await post('{"jsonrpc":"2.0","id":7,"method":"eth_chainId","params":[]}');
    expect(alive.json).toEqual({ jsonrpc: '2.0', id: 7, result: '0x7a69' });
    // The node's own count of flashblocks published more than 50 ms after their deadline.
    expect(after.total - before.total).toBeGreaterThan(wall / 200 - 5);
    expect(after.over50ms - before.over50ms).toBe(0);
    expect(wall).toBeLessThan(60_000);
  }, 90_000);
});
