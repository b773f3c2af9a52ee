/**
 * A front thread's read replica (rpc/readReplica.ts) on its own: which requests it answers,
 * which go to the main thread as they came, and when an answer the main thread gave is kept.
 * (The replica against a running node: rpc-front-threads.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { ReadReplica } from '../src/rpc/readReplica.js';

const A = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const start = {
  v: 5,
  head: '0x10',
  constants: { chainId: '0x7a69', netVersion: '31337', clientVersion: 'wharf/test' },
};
const req = (method: string, params?: unknown, id: unknown = 1) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

describe('ReadReplica', () => {
  it('answers the constants and the head in the dispatcher key order', () => {
    const r = new ReadReplica(start, 100, 1 << 20);
    expect(r.plan(req('eth_chainId'))).toEqual({
      kind: 'answer',
      text: '{"jsonrpc":"2.0","id":1,"result":"0x7a69"}',
    });
    expect(r.plan(req('eth_blockNumber', [], 'x'))).toEqual({
      kind: 'answer',
      text: '{"jsonrpc":"2.0","id":"x","result":"0x10"}',
    });
    expect(r.plan(req('net_version', null, null))).toEqual({
      kind: 'answer',
      text: '{"jsonrpc":"2.0","id":null,"result":"31337"}',
    });
  });

  it('leaves to the main thread what it might answer differently', () => {
    const r = new ReadReplica(start, 100, 1 << 20);
    for (const body of [
      undefined,
      [req('eth_chainId')],
      { jsonrpc: '2.0', method: 'eth_chainId' },
      { jsonrpc: '1.0', id: 1, method: 'eth_chainId' },
      req('eth_chainId', [1]),
      req('eth_chainId', {}),
      req('eth_chainId', [], {}),
      req('eth_getBalance', [A, 'earliest']),
      req('eth_getBalance', [A, '0x0']),
      req('eth_getBalance', [A, '0x010']),
      req('eth_getBalance', [A, { blockNumber: '0x10' }]),
      req('eth_getBalance', ['0X' + A.slice(2)]),
      req('eth_getBalance', [A.slice(0, 40)]),
      req('eth_getBalance', [A, 'latest', 1]),
      req('eth_getTransactionCount', [A, 'pending']),
      req('eth_getStorageAt', [A, '1']),
      req('eth_getStorageAt', [A, `0x${'0'.repeat(65)}`]),
      req('eth_call', [{ to: A }]),
      req('toString'),
      req('__proto__'),
    ])
      expect(r.plan(body), JSON.stringify(body)).toEqual({ kind: 'forward' });
  });

  it('keeps an answer read at its version or later, and drops what a state message names', () => {
    const r = new ReadReplica(start, 100, 1 << 20);
    const first = r.plan(req('eth_getStorageAt', [A.toUpperCase().replace('0X', '0x'), '0x1', '0x10']));
    expect(first).toEqual({
      kind: 'fill',
      key: { view: 'latest', address: A, field: 'slot', slot: '1'.padStart(64, '0') },
    });
    if (first.kind !== 'fill') return;
    // Read before a change to its view that this replica has applied: not kept.
    r.apply({ v: 6, head: '0x10', accounts: ['0x00000000000000000000000000000000000000aa'] });
    r.fill(first.key, '0x2a', 5);
    expect(r.plan(req('eth_getStorageAt', [A, '0x01'])).kind).toBe('fill');
    // Read before a change to the other view only (a flashblock: pending): kept.
    const pending = r.plan(req('eth_getBalance', [A, 'pending']));
    expect(pending.kind).toBe('fill');
    if (pending.kind !== 'fill') return;
    r.apply({ v: 7, head: '0x10', clearPending: true });
    r.fill(pending.key, '0x5', 6);
    expect(r.plan(req('eth_getBalance', [A, 'pending'])).kind).toBe('fill');
    r.fill(first.key, '0x2a', 6);
    expect(r.plan(req('eth_getStorageAt', [A, '0x01'], 8))).toEqual({
      kind: 'answer',
      text: '{"jsonrpc":"2.0","id":8,"result":"0x2a"}',
    });
    // Read at the version applied: kept, whatever spelling of the same slot asks next.
    r.fill(first.key, '0x2a', 7);
    expect(r.plan(req('eth_getStorageAt', [A, '0x01'], 9))).toEqual({
      kind: 'answer',
      text: '{"jsonrpc":"2.0","id":9,"result":"0x2a"}',
    });
    // A sealed block that changed the account: dropped; the head moves.
    r.apply({ v: 8, head: '0x11', accounts: [A] });
    expect(r.plan(req('eth_getStorageAt', [A, '0x1'])).kind).toBe('fill');
    expect(r.plan(req('eth_getStorageAt', [A, '0x1', '0x10'])).kind).toBe('forward');
    // Messages out of order are not applied.
    expect(r.apply({ v: 10, head: '0x12' })).toBe(false);
    expect(r.applied).toBe(8);
  });

  it('starts over when a view holds as many values as it may', () => {
    const r = new ReadReplica(start, 3, 1 << 20);
    const slot = (i: number) => i.toString(16).padStart(64, '0');
    const key = (i: number) => ({
      view: 'pending' as const,
      address: A,
      field: 'slot' as const,
      slot: slot(i),
    });
    const plan = (i: number) => r.plan(req('eth_getStorageAt', [A, `0x${i}`, 'pending'])).kind;
    // The account and a slot are two values: the third fill finds the view full and starts over.
    for (let i = 0; i < 4; i++) r.fill(key(i), '0x1', 5);
    expect([plan(0), plan(1), plan(2), plan(3)]).toEqual(['fill', 'fill', 'answer', 'answer']);
  });
});
