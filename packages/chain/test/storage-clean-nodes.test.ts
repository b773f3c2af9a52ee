// The disk layer's trie nodes kept in memory (storage/cleanNodes.ts, decision 0471): bounded by
// bytes, a stale version of a path is a miss, and what a flush wrote is read again without
// LevelDB (a real LevelDB and the real trie here).
import fs from 'node:fs';
import { Account, createAccountFromRLP } from '@ethereumjs/util';
import { afterEach, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { bytesToHex } from '../src/primitives/hex.js';
import { FlatStateReader } from '../src/state/flatState.js';
import type { StateDiff } from '../src/state/journaledState.js';
import { computeStateRoot } from '../src/state/stateRoot.js';
import { openTrie } from '../src/state/trieAdapter.js';
import { ChainStore } from '../src/storage/chainStore.js';
import { CleanNodes } from '../src/storage/cleanNodes.js';
import { EMPTY_TRIE_ROOT } from '../src/trie/index.js';
import { tempDir } from './node-helpers.js';
import { stateOnlyBlock } from './state-helpers.js';

const dirs: string[] = [];
const stores: ChainStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const node = (i: number, size = 100) => {
  const enc = new Uint8Array(size).fill(i & 0xff);
  return { enc, hash: keccak256(enc) };
};

describe('CleanNodes', () => {
  it('answers a path only with the version asked for', async () => {
    await initKeccak();
    const c = new CleanNodes(1 << 20);
    const v1 = node(1);
    const v2 = node(2);
    c.put('A\x01\x02', v1.hash, v1.enc);
    expect(c.find('A\x01\x02', v1.hash)).toEqual(v1.enc);
    // The path's newer version is not the one kept: a miss, not a wrong node.
    expect(c.find('A\x01\x02', v2.hash)).toBeUndefined();
    expect(c.find('A\x01', v1.hash)).toBeUndefined();
    c.put('A\x01\x02', v2.hash, v2.enc);
    expect(c.find('A\x01\x02', v2.hash)).toEqual(v2.enc);
    expect([c.hits, c.misses]).toEqual([2, 2]);
  });

  it('stays within its bytes however many nodes go in, and keeps what is read', async () => {
    await initKeccak();
    const c = new CleanNodes(64 * 1024);
    const hot = node(7, 300);
    c.put('hot', hot.hash, hot.enc);
    for (let i = 0; i < 5_000; i++) {
      const n = node(i, 200);
      c.put(`p${i}`, n.hash, n.enc);
      expect(c.bytes).toBeLessThanOrEqual(64 * 1024);
      // Read now and then: it survives every rotation.
      if (i % 50 === 0) expect(c.find('hot', hot.hash)).toEqual(hot.enc);
    }
    expect(c.size).toBeLessThan((64 * 1024) / 200);
    expect(c.find('p0', node(0, 200).hash)).toBeUndefined();
    const last = node(4_999, 200);
    expect(c.find('p4999', last.hash)).toEqual(last.enc);
    // A copy: changing it does not change what is kept.
    c.find('p4999', last.hash)!.fill(0);
    expect(c.find('p4999', last.hash)).toEqual(last.enc);
  });

  it('keeps nothing with no bytes, and forgets everything on clear', async () => {
    await initKeccak();
    const none = new CleanNodes(0);
    const n = node(1);
    none.put('a', n.hash, n.enc);
    expect(none.find('a', n.hash)).toBeUndefined();
    const c = new CleanNodes(1 << 20);
    c.put('a', n.hash, n.enc);
    c.clear();
    expect(c.find('a', n.hash)).toBeUndefined();
  });
});

/** Address number i, as the bench's fresh recipients. */
const address = (i: number) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  return a;
};

describe('ChainStore with the clean cache', () => {
  /**
   * Three blocks of new accounts, each block's trie nodes flushed to LevelDB at once (a window of
   * one block). Returns the store and the first block's root, whose nodes are all on disk now.
   */
  async function chain(cleanBytes: number, extra: number[] = []) {
    await initKeccak();
    const dir = tempDir('wharf-clean-nodes-');
    dirs.push(dir);
    const store = await ChainStore.open(dir, {
      window: 1,
      maxBytes: 1 << 30,
      flushBytes: 0,
      flushBlocks: 1,
      cleanBytes,
    });
    stores.push(store);
    const nodes = store.trieNodes;
    const flat = new FlatStateReader(store);
    let root = EMPTY_TRIE_ROOT;
    const roots: Uint8Array[] = [];
    for (let b = 0; b < 3; b++) {
      const diff: StateDiff = { accounts: new Map(), storage: new Map(), code: new Map() };
      const numbers = Array.from({ length: 500 }, (_, j) => b * 500 + 1 + j);
      if (b === 0) numbers.push(...extra);
      for (const i of numbers) diff.accounts.set(bytesToHex(address(i)), new Account(BigInt(i), 1n));
      const r = await computeStateRoot(root, flat, diff, nodes);
      await store.writeBlock(stateOnlyBlock(b, r));
      root = r.root;
      roots.push(r.root);
    }
    await store.flushed();
    return { store, nodes, root: roots[1] };
  }

  it("reads the flushed trie again from memory, and the answers are the trie's", async () => {
    const cached = await chain(8 << 20);
    const plain = await chain(0);
    for (const { store, nodes, root } of [cached, plain]) {
      const before = store.readKeys.trieNode;
      // A cold trie at block 1's root (older than the one-block window's diff layer: on disk).
      const t = openTrie(root, nodes);
      const asked = [1, 250, 1_000, 1_001, 1_400];
      // As the builder reads: each level of the paths in one getMany.
      await t.warm(asked.map((i) => keccak256(address(i))));
      for (const i of asked) {
        const leaf = await t.get(keccak256(address(i)));
        expect(leaf && createAccountFromRLP(leaf).nonce).toBe(i <= 1_000 ? BigInt(i) : undefined);
      }
      const read = store.readKeys.trieNode - before;
      if (store === cached.store) expect(read).toBe(0);
      else expect(read).toBeGreaterThan(0);
    }
    expect(cached.store.cleanNodes.hits).toBeGreaterThan(0);
  });

  it('keeps of a node made from its leaves only the nodes along the keys read', async () => {
    // Twelve accounts whose keys start with four zero nibbles: the node at path 0000 (below the
    // depth the disk layer stores) is made from a subtree of twelve leaves and the branches
    // over them.
    const under = [];
    const a = new Uint8Array(20);
    for (let i = 1; under.length < 12; i++) {
      new DataView(a.buffer).setUint32(16, i);
      const h = keccak256(a);
      if (h[0] === 0 && h[1] === 0) under.push(i);
    }
    const key = keccak256(address(under[0]));
    const readers = {
      // As the trie asks: with the key each read heads to.
      along: (store: ChainStore) => store.trieNodes,
      // A reader that does not say where it goes: the store keeps the whole subtree.
      anywhere: (store: ChainStore) => ({
        get: (h: Uint8Array, p?: Uint8Array, o?: Uint8Array) => store.getTrieNode(h, p, o),
      }),
    };
    const kept: Record<string, number> = {};
    let pathNodes = 0;
    for (const [name, reader] of Object.entries(readers)) {
      const { store, root } = await chain(8 << 20, under);
      const nodes = reader(store);
      // As after a restart: a flush keeps what it wrote in the cache, so the cache is emptied.
      store.cleanNodes.clear();
      const before = { size: store.cleanNodes.size, made: store.readKeys.nodesMade };
      const leaf = await openTrie(root, nodes).get(key);
      expect(leaf && createAccountFromRLP(leaf).nonce).toBe(BigInt(under[0]));
      expect(store.readKeys.nodesMade).toBeGreaterThan(before.made);
      kept[name] = store.cleanNodes.size - before.size;
      pathNodes = (await openTrie(root, nodes).createProof(key)).length;
      // What a read made, a read of the same key finds in memory: nothing is made again.
      const made = store.readKeys.nodesMade;
      const again = await openTrie(root, nodes).get(key);
      expect(again).toEqual(leaf);
      expect(store.readKeys.nodesMade).toBe(made);
    }
    // Along the key: at most the nodes of its path (the stored ones read from disk, and the made).
    expect(kept.along).toBeLessThanOrEqual(pathNodes);
    // The whole subtree: its twelve leaves at least.
    expect(kept.anywhere).toBeGreaterThanOrEqual(12);
  });
});
