/**
 * Bad input gets the right JSON-RPC error naming the problem, and the node keeps serving:
 * malformed JSON, bad envelopes, wrong parameter counts and types, bad hex, unknown tags, wrong
 * hash lengths, random bytes as a raw transaction, oversized bodies and batches, and a fuzz run.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, rpcRaw, startTestNode, type TestNode } from './node-helpers.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ mining: false });
});
afterAll(async () => {
  await node?.stop();
});

const call = (method: string, params: unknown) => rpcRaw(node.url, { jsonrpc: '2.0', id: 7, method, params });
const ADDR = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

async function expectError(method: string, params: unknown, code: number, message?: RegExp) {
  const { json } = await call(method, params);
  expect(json.id, `${method} ${JSON.stringify(params)}`).toBe(7);
  expect(json.error?.code, `${method} ${JSON.stringify(params)} -> ${JSON.stringify(json)}`).toBe(code);
  if (message) expect(json.error.message).toMatch(message);
}

describe('envelope', () => {
  it('answers -32700 to malformed JSON', async () => {
    for (const body of ['{', '{"jsonrpc":"2.0",', 'nope', '\u0000\u0001', '[1,2']) {
      const r = await rpcRaw(node.url, body);
      expect(r.json.error.code).toBe(-32700);
      expect(r.json.id).toBeNull();
    }
  });

  it('answers -32600 to invalid request objects', async () => {
    for (const body of [
      '1',
      '"x"',
      'null',
      '{}',
      '{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}',
      '{"jsonrpc":"2.0","id":1,"method":5}',
      '{"jsonrpc":"2.0","id":{},"method":"eth_chainId"}',
      '[]',
    ]) {
      const r = await rpcRaw(node.url, body);
      expect(r.json.error?.code, body).toBe(-32600);
    }
  });

  it('answers -32601 to unknown methods and -32602 to by-name params', async () => {
    await expectError('eth_nope', [], -32601, /eth_nope/);
    await expectError('eth_getBalance', { address: ADDR }, -32602);
  });

  it('handles batches, caps them at 1,000 and bodies at 5 MiB', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', id: 2, method: 'eth_nope' },
      5,
    ];
    const r = await rpcRaw(node.url, batch);
    expect(r.json).toHaveLength(3);
    expect(r.json[0].result).toBe('0x7a69');
    expect(r.json[1].error.code).toBe(-32601);
    expect(r.json[2].error.code).toBe(-32600);

    const big = Array.from({ length: 1001 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    expect((await rpcRaw(node.url, big)).json.error.code).toBe(-32600);
    const ok = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }));
    expect((await rpcRaw(node.url, ok)).json).toHaveLength(1000);

    const huge = `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":["${'a'.repeat(6 * 1024 * 1024)}"]}`;
    const r2 = await rpcRaw(node.url, huge);
    expect(r2.status).toBe(413);
    expect(r2.json.error.code).toBe(-32600);
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x7a69');
  });
});

describe('parameters', () => {
  it('checks counts', async () => {
    await expectError('eth_getBalance', [], -32602, /missing value for required argument 0/);
    await expectError('eth_chainId', [1], -32602, /too many arguments/);
    await expectError('eth_getBlockByNumber', ['latest'], -32602, /argument 1/);
    await expectError('eth_getStorageAt', [ADDR, '0x0', 'latest', 1], -32602, /too many/);
  });

  it('checks hex', async () => {
    await expectError(
      'eth_getBalance',
      ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb9226', 'latest'],
      -32602,
      /odd length/,
    );
    await expectError(
      'eth_getBalance',
      ['f39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'latest'],
      -32602,
      /0x prefix/,
    );
    await expectError(
      'eth_getBalance',
      ['0xzz9fd6e51aad88f6f4ce6ab8827279cfffb92266', 'latest'],
      -32602,
      /invalid hex/,
    );
    await expectError('eth_getBalance', [`${ADDR}00`, 'latest'], -32602, /want 40/);
    await expectError('eth_getBlockByNumber', ['0x01', false], -32602, /leading zero/);
    await expectError('eth_getBlockByNumber', ['0x', false], -32602, /argument 0 \(block\)/);
    await expectError('eth_getBlockByNumber', ['12', false], -32602, /block/);
    await expectError('eth_getBlockByNumber', [12, false], -32602, /block/);
    await expectError('eth_getBlockByNumber', ['0x0', 'yes'], -32602, /boolean/);
    await expectError('eth_getBlockByHash', ['0x1234', false], -32602, /want 64/);
    await expectError('eth_getTransactionByHash', [`0x${'ab'.repeat(33)}`], -32602, /want 64/);
  });

  it('checks block tags and answers beyond the head as the design says', async () => {
    await expectError('eth_getBalance', [ADDR, 'newest'], -32602, /unknown block tag/);
    await expectError('eth_getBalance', [ADDR, '0x100'], -32000, /header not found/);
    expect(await rpc(node.url, 'eth_getBlockByNumber', ['0x100', false])).toBeNull();
    for (const tag of ['latest', 'pending', 'safe', 'finalized', 'earliest', '0x0'])
      expect(await rpc(node.url, 'eth_getBalance', [ADDR, tag])).toBe('0x21e19e0c9bab2400000');
    // The block being built in Base's shape (design.md, "pending"): latest + 1 and the zero hash.
    const pending = await rpc(node.url, 'eth_getBlockByNumber', ['pending', false]);
    const latest = await rpc(node.url, 'eth_getBlockByNumber', ['latest', false]);
    expect(BigInt(pending.number)).toBe(BigInt(latest.number) + 1n);
    expect(pending.hash).toBe(`0x${'0'.repeat(64)}`);
    expect(pending.parentHash).toBe(latest.hash);
  });

  it('refuses random bytes as a raw transaction with -32000 or -32602, never -32603', async () => {
    for (let i = 0; i < 200; i++) {
      const { json } = await call('eth_sendRawTransaction', [
        `0x${randomBytes(1 + (i % 120)).toString('hex')}`,
      ]);
      expect(json.error, JSON.stringify(json)).toBeDefined();
      expect([-32000, -32602]).toContain(json.error.code);
    }
    await expectError('eth_sendRawTransaction', ['0x'], -32602);
  });
});

describe('fuzz', () => {
  const METHODS = [
    'eth_getBalance',
    'eth_getStorageAt',
    'eth_getCode',
    'eth_getTransactionCount',
    'eth_call',
    'eth_estimateGas',
    'eth_getBlockByNumber',
    'eth_getBlockByHash',
    'eth_getLogs',
    'eth_getProof',
    'eth_sendRawTransaction',
    'eth_getTransactionByHash',
    'eth_getTransactionReceipt',
    'eth_feeHistory',
    'eth_newFilter',
    'eth_getFilterChanges',
    'eth_subscribe',
    'debug_getRawBlock',
    'txpool_contentFrom',
    'eth_createAccessList',
    'eth_getBlockReceipts',
    'web3_sha3',
    'eth_chainId',
    'debug_traceTransaction',
  ];
  const VALUES: unknown[] = [
    null,
    true,
    0,
    -1,
    1.5,
    '',
    '0x',
    '0x0',
    '0x00',
    '0x1',
    'latest',
    'pending',
    'earliest',
    'safe',
    'bogus',
    ADDR,
    `0x${'00'.repeat(32)}`,
    `0x${'ff'.repeat(32)}`,
    '0xzz',
    'f39f',
    `0x${'1'.repeat(65)}`,
    [],
    {},
    [null],
    { to: ADDR },
    { from: ADDR, to: ADDR, value: '0x1' },
    { data: '0x1' },
    { fromBlock: '0x5', toBlock: '0x1' },
    { topics: [[], null, ['0x12']] },
    { address: 5 },
    { gas: '0x01' },
    { blockHash: '0x12' },
    '\u0000',
    'x'.repeat(1000),
    [1, 2, 3, 4, 5],
    { blockNumber: '0x0' },
    [95, 99],
  ];
  const pick = <T>(a: readonly T[]) => a[Math.floor(Math.random() * a.length)];

  it('answers thousands of random requests with well-formed responses and keeps serving', async () => {
    let internal = 0;
    for (let round = 0; round < 30; round++) {
      const batch = Array.from({ length: 100 }, (_, i) => ({
        jsonrpc: '2.0',
        id: round * 100 + i,
        method: pick(METHODS),
        params: Array.from({ length: Math.floor(Math.random() * 4) }, () => pick(VALUES)),
      }));
      const { json } = await rpcRaw(node.url, batch);
      expect(json).toHaveLength(100);
      for (const r of json) {
        expect(r.jsonrpc).toBe('2.0');
        expect('result' in r !== 'error' in r).toBe(true);
        if (r.error) {
          expect(typeof r.error.message).toBe('string');
          expect([3, -32000, -32601, -32602, -32603]).toContain(r.error.code);
          if (r.error.code === -32603) internal++;
        }
      }
    }
    expect(internal).toBe(0);
    expect(await rpc(node.url, 'eth_blockNumber')).toBe('0x0');
  });
});
