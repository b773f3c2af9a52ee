// The latest-state cache stays bounded however many accounts the chain holds, keeps what is in
// use, and never answers differently from the database it fronts (a real LevelDB here).
import fs from 'node:fs';
import { Account } from '@ethereumjs/util';
import { afterEach, describe, expect, it } from 'vitest';
import { initKeccak } from '../src/crypto/keccak.js';
import { bytesToHex, bytesToHexPair, hexToBytes } from '../src/primitives/hex.js';
import { FlatStateReader } from '../src/state/flatState.js';
import { GenerationalCache } from '../src/state/generationalCache.js';
import type { StateDiff } from '../src/state/journaledState.js';
import { computeStateRoot } from '../src/state/stateRoot.js';
import { ChainStore } from '../src/storage/chainStore.js';
import { EMPTY_TRIE_ROOT } from '../src/trie/index.js';
import { accountFromFlat } from '../src/storage/flatAccount.js';
import { keys } from '../src/storage/keys.js';
import { tempDir } from './node-helpers.js';
import { stateOnlyBlock } from './state-helpers.js';

const dirs: string[] = [];
const stores: ChainStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function openStore(limits?: Parameters<typeof ChainStore.open>[1]): Promise<ChainStore> {
  const dir = tempDir('wharf-flatcache-');
  dirs.push(dir);
  const s = await ChainStore.open(dir, limits);
  stores.push(s);
  return s;
}

/** Address number i (big-endian in the last 4 bytes), as the bench's fresh recipients. */
const address = (i: number) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  return a;
};

describe('bytesToHex', () => {
  it('is 0x and two lowercase digits per byte, for every byte value and length', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(bytesToHex(all)).toBe(`0x${Buffer.from(all).toString('hex')}`);
    expect(bytesToHex(new Uint8Array(0))).toBe('0x');
    expect(bytesToHex(all.subarray(250, 253))).toBe('0xfafbfc');
  });

  it('pairs an address and a slot into one key', () => {
    expect(bytesToHexPair(Uint8Array.of(0xab), Uint8Array.of(0x01, 0xff))).toBe('0xab01ff');
    expect(bytesToHexPair(new Uint8Array(0), new Uint8Array(0))).toBe('0x');
  });
});

describe('GenerationalCache', () => {
  it('holds at most two generations however many keys go in', () => {
    const c = new GenerationalCache<number>(100);
    for (let i = 0; i < 10_000; i++) c.set(`k${i}`, i);
    expect(c.size).toBeLessThanOrEqual(200);
    expect(c.get('k9999')).toBe(9999);
    expect(c.get('k0')).toBeUndefined();
    expect(c.evicted).toBe(true);
  });

  it('keeps a key that is used while others stream through', () => {
    const c = new GenerationalCache<string>(100);
    c.set('hot', 'sender');
    for (let i = 0; i < 5_000; i++) {
      c.set(`fresh${i}`, 'x');
      if (i % 50 === 0) expect(c.get('hot')).toBe('sender');
    }
    expect(c.get('hot')).toBe('sender');
  });

  it('is not evicted until something is dropped, and a set replaces an older value', () => {
    const c = new GenerationalCache<number>(3);
    for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) c.set(k, 1);
    expect(c.evicted).toBe(false);
    c.set('a', 2); // in the old generation: moves up with its new value
    expect(c.get('a')).toBe(2);
    c.set('g', 1);
    expect(c.evicted).toBe(true);
    expect(c.get('a')).toBe(2);
  });

  it('drops keys by prefix and refuses a limit that is not positive', () => {
    const c = new GenerationalCache<number>(10);
    c.set('0xaa01', 1);
    c.set('0xaa02', 2);
    c.set('0xbb01', 3);
    c.deletePrefix('0xaa');
    expect([c.get('0xaa01'), c.get('0xaa02'), c.get('0xbb01')]).toEqual([undefined, undefined, 3]);
    expect(() => new GenerationalCache(0)).toThrow(/limit must be positive, got 0/);
  });
});

describe('FlatStateReader', () => {
  it('answers from LevelDB once the state outgrows the cache, and prefetches in one call', async () => {
    const store = await openStore();
    const N = 70_000; // more than two cache generations
    const batch = [];
    for (let i = 1; i <= N; i++)
      batch.push({
        key: keys.account(address(i)),
        value: new Account(BigInt(i), BigInt(i) * 10n).serialize(),
      });
    for (let i = 0; i < batch.length; i += 10_000)
      await Promise.all(batch.slice(i, i + 10_000).map((p) => store.put(p.key, p.value)));

    const flat = new FlatStateReader(store);
    await flat.preload(); // too many to hold: not complete, misses go to the database
    for (const i of [1, 2, 35_000, N]) expect((await flat.readAccount(address(i)))?.nonce).toBe(BigInt(i));
    expect(await flat.readAccount(address(N + 1))).toBeUndefined();

    // Stream every account through: the answers stay right, the cache stays bounded.
    for (let i = 1; i <= N; i += 7)
      expect((await flat.readAccount(address(i)))?.balance).toBe(BigInt(i) * 10n);

    let gets = 0;
    let getManys = 0;
    const get = store.get.bind(store);
    const getMany = store.getMany.bind(store);
    store.get = (k) => {
      gets++;
      return get(k);
    };
    store.getMany = (ks) => {
      getManys++;
      return getMany(ks);
    };
    const batchOf = [3, 4, 5, N + 5, N + 6].map(address);
    await flat.prefetch(batchOf);
    expect(getManys).toBe(1);
    const read = await Promise.all(batchOf.map((a) => flat.readAccount(a)));
    expect(read.map((a) => a?.nonce)).toEqual([3n, 4n, 5n, undefined, undefined]);
    expect(gets).toBe(0);
  });

  it('a sealed diff updates what it serves, a deleted account included', async () => {
    const store = await openStore();
    await store.put(keys.account(address(1)), new Account(1n, 100n).serialize());
    const flat = new FlatStateReader(store);
    await flat.preload();
    expect((await flat.readAccount(address(1)))?.balance).toBe(100n);
    flat.applySealed({
      accounts: [
        { address: address(1), account: null },
        { address: address(2), account: new Account(0n, 7n) },
      ],
      clearedStorage: [],
      storage: [{ address: address(2), slot: new Uint8Array(32), value: Uint8Array.of(9) }],
    });
    expect(await flat.readAccount(address(1))).toBeUndefined();
    expect((await flat.readAccount(address(2)))?.balance).toBe(7n);
    expect(await flat.readStorage(address(2), new Uint8Array(32))).toEqual(Uint8Array.of(9));
  });

  it('prefetches through the sealed trie: fresh addresses are known absent without a flat-state read', async () => {
    // One diff layer, flushed at once: the trie's nodes below the top are read from LevelDB.
    await initKeccak();
    const store = await openStore({ window: 1, maxBytes: 1 << 30, flushBytes: 0, flushBlocks: 1 });
    const nodes = store.trieNodes;
    const flat = new FlatStateReader(store, 1000);
    await flat.preload();
    let root = EMPTY_TRIE_ROOT;
    let trie: Awaited<ReturnType<typeof computeStateRoot>>['trie'] | undefined;
    // Three blocks of 3,000 accounts each (more than the cache holds: it evicts).
    const N = 3_000;
    for (let b = 0; b < 3; b++) {
      const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() };
      for (let i = b * N + 1; i <= (b + 1) * N; i++)
        diff.accounts.set(bytesToHex(address(i)), new Account(BigInt(i), BigInt(i) * 10n));
      const r = await computeStateRoot(root, flat, diff, nodes, trie);
      const sealed = [...r.accounts].map(([k, a]) => ({ address: hexToBytes(k), account: a }));
      await store.writeBlock(stateOnlyBlock(b, r));
      // As the builder does: the trie kept warm only at its top.
      r.trie.evict(1);
      flat.applySealed({ accounts: sealed, clearedStorage: [], storage: [] }, r.trie);
      root = r.root;
      trie = r.trie;
    }
    await store.flushed();
    const before = { ...store.readKeys };
    // Existing accounts the cache has evicted, and fresh addresses.
    const asked = [1, 2, 777, N + 3, 3 * N, 3 * N + 1, 3 * N + 50, 10_000_000].map(address);
    await flat.prefetch(asked);
    expect(store.readKeys.account - before.account).toBe(0);
    // The nodes below the top (the newest block's layer has most of depths 2-3) are the disk
    // layer's, made from its leaves (decision 0650).
    expect(store.readKeys.nodesMade - before.nodesMade).toBeGreaterThan(0);
    let gets = 0;
    const get = store.get.bind(store);
    store.get = (k) => {
      gets++;
      return get(k);
    };
    const read = await Promise.all(asked.map((a) => flat.readAccount(a)));
    expect(gets).toBe(0);
    const n = BigInt(N);
    expect(read.map((a) => a?.balance)).toEqual([
      10n,
      20n,
      7770n,
      (n + 3n) * 10n,
      3n * n * 10n,
      undefined,
      undefined,
      undefined,
    ]);
    // The same answers as the flat state in LevelDB.
    store.get = get;
    for (const a of asked) {
      const raw = await store.get(keys.account(a));
      expect(read[asked.indexOf(a)]?.nonce).toBe(raw ? accountFromFlat(raw).nonce : undefined);
    }
  });
});
