// The chain store gathers the LevelDB reads asked for while callbacks and their promise
// continuations run into one getMany (decision 0431): each reader still gets its own values in
// its own order, a reader resumed by another's answer joins the next trip, and a failed read
// fails every reader it served.
import fs from 'node:fs';
import path from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { Account } from '@ethereumjs/util';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { keys } from '../src/storage/keys.js';
import { encodeReceipt } from '../src/storage/receiptCodec.js';
import { type BlockWrite, ChainStore } from '../src/storage/chainStore.js';
import { tempDir } from './node-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const b = (n: number, len = 32) => new Uint8Array(len).fill(n);
const u = (x: Uint8Array | undefined) => (x === undefined ? undefined : Uint8Array.from(x));
const addr = (n: number) => b(n, 20);
const account = (n: number) => new Account(BigInt(n), 1000n).serialize();

/** Block 1: accounts 1..3 and one slot of account 1, on disk once it lands. */
function block1(): BlockWrite {
  const node = Uint8Array.of(0xc2, 1);
  return {
    hash: b(1),
    number: 1n,
    rlp: Uint8Array.of(0xc0, 1),
    receipts: RLP.encode([
      encodeReceipt({ type: 2, status: 1, cumulativeGasUsed: 21000n, bloom: new Uint8Array(256), logs: [] }),
    ]),
    senders: b(1, 20),
    txHashes: [b(101)],
    accounts: new Map([1, 2, 3].map((n) => [`0x${n}`, { address: addr(n), rlp: account(n) }])),
    clearedStorage: [],
    storage: [{ address: addr(1), slot: b(9), value: Uint8Array.of(7) }],
    code: [],
    nodes: [[keys.accountNode(Uint8Array.of(1)), keccak256(node), node]],
  };
}

async function open(): Promise<ChainStore> {
  const dir = path.join(tempDir('wharf-reads-'), 'chain');
  dirs.push(path.dirname(dir));
  const store = await ChainStore.open(dir);
  await store.writeBlock(block1());
  return store;
}

describe('ChainStore gathered reads', () => {
  beforeAll(() => initKeccak());

  it('serves readers asking in one turn with one LevelDB read, each its own values in order', async () => {
    const store = await open();
    const before = store.reads;
    const [a, c, d] = await Promise.all([
      store.getMany([keys.account(addr(2)), keys.account(addr(9)), keys.account(addr(1))]),
      store.getMany([keys.storage(addr(1), b(9))]),
      // A reader resumed by a promise continuation in the same turn joins too.
      Promise.resolve()
        .then(() => undefined)
        .then(() => store.getMany([keys.account(addr(3)), keys.storage(addr(1), b(8))])),
    ]);
    expect(store.reads - before).toBe(1);
    // As one get at a time reads them (the flat state's own encoding of each account).
    const one = (k: Uint8Array) => store.get(k).then(u);
    expect(a.map(u)).toEqual([await one(keys.account(addr(2))), undefined, await one(keys.account(addr(1)))]);
    expect(a[0]).toBeDefined();
    expect(c.map(u)).toEqual([Uint8Array.of(7)]);
    expect(d.map(u)).toEqual([await one(keys.account(addr(3))), undefined]);
    await store.close();
  });

  it('a reader that waits for an answer before asking goes in a trip of its own', async () => {
    const store = await open();
    const before = store.reads;
    const first = await store.getMany([keys.account(addr(1))]);
    const second = await store.getMany([keys.account(addr(2))]);
    expect(store.reads - before).toBe(2);
    expect([...first, ...second].map(u)).toEqual([
      u(await store.get(keys.account(addr(1)))),
      u(await store.get(keys.account(addr(2)))),
    ]);
    expect(first[0]).not.toEqual(second[0]);
    await store.close();
  });

  it('a failed read fails every reader it served, with LevelDB’s error', async () => {
    const store = await open();
    await store.close();
    const reads = [store.getMany([keys.account(addr(1))]), store.getMany([keys.account(addr(2))])];
    for (const r of reads) await expect(r).rejects.toThrow(/not open/i);
  });
});
