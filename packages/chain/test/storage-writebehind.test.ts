// The chain store writes each sealed block behind the head: what writeBlock was given is
// readable at once (an in-memory overlay), blocks land in order, and a failed batch stops
// every later one instead of leaving a gap.
import fs from 'node:fs';
import path from 'node:path';
import { RLP } from '@ethereumjs/rlp';
import { Account } from '@ethereumjs/util';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { accountFromFlat } from '../src/storage/flatAccount.js';
import { keys } from '../src/storage/keys.js';
import { decodeReceiptList, encodeReceipt } from '../src/storage/receiptCodec.js';
import { type BlockWrite, ChainStore } from '../src/storage/chainStore.js';
import { tempDir } from './node-helpers.js';

const dirs: string[] = [];
const restore: (() => void)[] = [];
afterEach(() => {
  for (const r of restore.splice(0)) r();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** Holds every chained batch's write until `release()` (or fails it with `fail`). */
function holdWrites(): { release: () => void; fail: (e: Error) => void } {
  const proto = ClassicLevel.prototype as unknown as {
    _chainedBatch: () => { write: (...a: unknown[]) => Promise<void> };
  };
  const original = proto._chainedBatch;
  let release!: () => void;
  let fail!: (e: Error) => void;
  const gate = new Promise<void>((resolve, reject) => {
    release = resolve;
    fail = reject;
  });
  gate.catch(() => {});
  proto._chainedBatch = function (this: unknown) {
    const batch = original.call(this);
    const write = batch.write.bind(batch);
    batch.write = (...args: unknown[]) => gate.then(() => write(...args));
    return batch;
  };
  restore.push(() => {
    proto._chainedBatch = original;
  });
  return { release, fail };
}

const b = (n: number, len = 32) => new Uint8Array(len).fill(n);
/** LevelDB answers Buffers, the overlay the arrays it was given: compare bytes. */
const u = (x: Uint8Array | undefined) => (x === undefined ? undefined : Uint8Array.from(x));
const loc = (x: { blockHash: Uint8Array; index: number } | undefined) =>
  x && { ...x, blockHash: u(x.blockHash) };
const addr = b(0xaa, 20);
/** Block n's one receipt, as consensus encodes it. */
const receipt = (n: number) =>
  encodeReceipt({ type: 2, status: 1, cumulativeGasUsed: BigInt(n), bloom: new Uint8Array(256), logs: [] });
/** An account's trie RLP (nonce n). */
const account = (n: number) => new Account(BigInt(n), 1000n).serialize();
/** A trie node of block n (any bytes: a path store checks only that its keccak matches). */
const node = (n: number) => Uint8Array.of(0xc2, n);
/** Block n's node as the trie asks for it: by hash and path. */
const nodesOf = (s: ChainStore, ns: number[]) =>
  s.getTrieNodes(
    ns.map((n) => keccak256(node(n))),
    ns.map((n) => Uint8Array.of(n % 16)),
  );

function block(n: number, extra: Partial<BlockWrite> = {}): BlockWrite {
  return {
    hash: b(n),
    number: BigInt(n),
    rlp: Uint8Array.of(0xc0, n),
    receipts: RLP.encode([receipt(n)]),
    senders: b(n, 20),
    txHashes: [b(100 + n)],
    accounts: new Map([['0xaa', { address: addr, rlp: account(n) }]]),
    clearedStorage: [],
    storage: [{ address: addr, slot: b(1), value: Uint8Array.of(n) }],
    code: [],
    nodes: [[keys.accountNode(Uint8Array.of(n % 16)), keccak256(node(n)), node(n)]],
    ...extra,
  };
}

async function open(): Promise<{ store: ChainStore; dir: string }> {
  const dir = path.join(tempDir('wharf-store-'), 'chain');
  dirs.push(path.dirname(dir));
  return { store: await ChainStore.open(dir), dir };
}

describe('ChainStore write-behind', () => {
  beforeAll(() => initKeccak());
  it('serves a block before its batch lands, and from disk after', async () => {
    const { store, dir } = await open();
    const gate = holdWrites();
    const durable = store.writeBlock(block(1));
    let landed = false;
    durable.then(() => {
      landed = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(landed).toBe(false);
    expect(u(await store.get(keys.head))).toEqual(b(1));
    expect(u(await store.hashByNumber(1n))).toEqual(b(1));
    expect(loc(await store.txLocation(b(101)))).toEqual({ blockHash: b(1), index: 0 });
    expect((await nodesOf(store, [1, 9])).map(u)).toEqual([node(1), undefined]);
    expect(u(await store.get(keys.storage(addr, b(1))))).toEqual(Uint8Array.of(1));

    gate.release();
    await durable;
    await store.close();
    const again = await ChainStore.open(dir);
    expect(u(await again.get(keys.head))).toEqual(b(1));
    expect(loc(await again.txLocation(b(101)))).toEqual({ blockHash: b(1), index: 0 });
    expect(u(await again.get(keys.storage(addr, b(1))))).toEqual(Uint8Array.of(1));
    await again.close();
  });

  it('puts every kind of key where keys.ts says, in the overlay and on disk, deletions included', async () => {
    const { store, dir } = await open();
    const gone = b(0xbb, 20);
    await store.writeBlock(
      block(1, {
        accounts: new Map([
          ['0xaa', { address: addr, rlp: account(41) }],
          ['0xbb', { address: gone, rlp: account(42) }],
        ]),
        storage: [
          { address: addr, slot: b(1), value: Uint8Array.of(7) },
          { address: addr, slot: b(2), value: Uint8Array.of(8) },
        ],
        code: [{ hash: b(50), code: Uint8Array.of(0x60, 0x00) }],
        txHashes: [b(111), b(112)],
      }),
    );
    const gate = holdWrites();
    const second = store.writeBlock(
      block(2, {
        accounts: new Map([['0xbb', { address: gone, rlp: null }]]),
        storage: [{ address: addr, slot: b(2), value: new Uint8Array(0) }],
      }),
    );
    const expected = async (s: ChainStore) => {
      expect(accountFromFlat((await s.get(keys.account(addr)))!).serialize()).toEqual(account(41));
      expect(await s.get(keys.account(gone))).toBeUndefined();
      expect(u(await s.get(keys.storage(addr, b(1))))).toEqual(Uint8Array.of(7));
      expect(await s.get(keys.storage(addr, b(2)))).toBeUndefined();
      expect(u(await s.get(keys.code(b(50))))).toEqual(Uint8Array.of(0x60, 0x00));
      expect(u(await s.get(keys.block(b(1))))).toEqual(Uint8Array.of(0xc0, 1));
      // The overlay holds the consensus encodings, the disk the compact ones: read back alike.
      expect(decodeReceiptList((await s.get(keys.receipts(b(2))))!)).toEqual([receipt(2)]);
      expect(u(await s.get(keys.senders(b(2))))).toEqual(b(2, 20));
      expect(loc(await s.txLocation(b(112)))).toEqual({ blockHash: b(1), index: 1 });
      expect(u(await s.hashByNumber(1n))).toEqual(b(1));
      expect(u(await s.hashByNumber(2n))).toEqual(b(2));
      expect(u(await s.get(keys.head))).toEqual(b(2));
    };
    await expected(store); // block 2 from the overlay
    // The trie nodes are block 1's and 2's diff layers, in memory.
    expect((await nodesOf(store, [1, 2])).map(u)).toEqual([node(1), node(2)]);
    gate.release();
    await second;
    await store.close();
    const again = await ChainStore.open(dir);
    await expected(again);
    // On disk the values are the compact ones (decisions 0421, 0422): no bloom, a slim account.
    expect((await again.get(keys.receipts(b(2))))!.length).toBeLessThan(receipt(2).length - 256);
    expect((await again.get(keys.account(addr)))!.length).toBeLessThan(account(41).length - 60);
    // On disk, the forward diff that rebuilds block 2's trie nodes at start (rebuildLayers.ts).
    const d = await again.stateDiffOf(2n);
    expect(d?.accounts.map((a) => [u(a.address), a.rlp])).toEqual([[gone, null]]);
    expect(d?.storage.map((x) => u(x.value))).toEqual([new Uint8Array(0)]);
    await again.close();
  });

  it('fillAfter: no batch is filled before it settles (the block readable meanwhile), and blocks still land in order', async () => {
    const { store, dir } = await open();
    // Counts the puts LevelDB is given: none may happen while the gate is shut.
    const proto = ClassicLevel.prototype as unknown as {
      _chainedBatch: () => { put: (...a: unknown[]) => unknown };
    };
    const original = proto._chainedBatch;
    let puts = 0;
    proto._chainedBatch = function (this: unknown) {
      const batch = original.call(this);
      const put = batch.put.bind(batch);
      batch.put = (...args: unknown[]) => {
        puts++;
        return put(...args);
      };
      return batch;
    };
    restore.push(() => {
      proto._chainedBatch = original;
    });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const first = store.writeBlock(block(1), gate);
    const second = store.writeBlock(block(2));
    let landed = 0;
    first.then(() => landed++);
    second.then(() => landed++);
    await new Promise((r) => setTimeout(r, 50));
    expect(puts).toBe(0);
    expect(landed).toBe(0);
    expect(u(await store.get(keys.head))).toEqual(b(2));
    expect(u(await store.hashByNumber(1n))).toEqual(b(1));
    release();
    await Promise.all([first, second]);
    expect(puts).toBeGreaterThan(0);
    await store.close();
    const again = await ChainStore.open(dir);
    expect(u(await again.get(keys.head))).toEqual(b(2));
    expect(u(await again.hashByNumber(1n))).toEqual(b(1));
    await again.close();
  });

  it('a later unwritten block wins; clearing an account hides its older slots at once', async () => {
    const { store } = await open();
    const gate = holdWrites();
    const one = store.writeBlock(
      block(1, { storage: [{ address: addr, slot: b(2), value: Uint8Array.of(7) }] }),
    );
    const two = store.writeBlock(block(2, { clearedStorage: [addr], storage: [] }));
    expect(u(await store.get(keys.head))).toEqual(b(2));
    // Block 2 cleared the account's storage: block 1's slot is gone though neither is on disk.
    expect(u(await store.get(keys.storage(addr, b(2))))).toBeUndefined();
    gate.release();
    await Promise.all([one, two]);
    expect(u(await store.get(keys.storage(addr, b(2))))).toBeUndefined();
    expect(u(await store.get(keys.head))).toEqual(b(2));
    await store.close();
  });

  it('getMany answers from the unwritten blocks first: a deleted account is gone, a cleared slot too', async () => {
    const { store } = await open();
    const other = b(0xbb, 20);
    await store.put(keys.account(addr), Uint8Array.of(0xee)); // on disk before the blocks
    await store.put(keys.account(other), Uint8Array.of(0xdd));
    await store.put(keys.storage(addr, b(3)), Uint8Array.of(5));
    const gate = holdWrites();
    const one = store.writeBlock(
      block(1, {
        accounts: new Map([['0xaa', { address: addr, rlp: null }]]),
        clearedStorage: [addr],
        storage: [],
      }),
    );
    const got = await store.getMany([
      keys.account(addr),
      keys.account(other),
      keys.storage(addr, b(3)),
      keys.account(b(0xcc, 20)),
    ]);
    expect(got.map(u)).toEqual([undefined, Uint8Array.of(0xdd), undefined, undefined]);
    gate.release();
    await one;
    expect((await store.getMany([keys.account(addr), keys.account(other)])).map(u)).toEqual([
      undefined,
      Uint8Array.of(0xdd),
    ]);
    await store.close();
  });

  it('after a failed batch, nothing later is written and flushed() says why', async () => {
    const { store } = await open();
    const gate = holdWrites();
    const one = store.writeBlock(block(1));
    const two = store.writeBlock(block(2));
    gate.fail(new Error('disk full'));
    await expect(one).rejects.toThrow('writing block 1 failed: disk full');
    await expect(two).rejects.toThrow('writing block 1 failed');
    await expect(store.writeBlock(block(3))).rejects.toThrow('writing block 1 failed');
    await expect(store.flushed()).rejects.toThrow('disk full');
    await store.close();
  });
});
