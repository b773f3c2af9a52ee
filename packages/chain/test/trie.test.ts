/**
 * MerkleTrie against @ethereumjs/mpt on random workloads: identical roots after every batch,
 * identical proofs, and identical roots after reopening from the store at a committed root.
 */
import { createMerkleProof, createMPT, type MerklePatriciaTrie, verifyMerkleProof } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import {
  AppendOnlyOrderedTrie,
  EMPTY_TRIE_ROOT,
  MemoryNodeStore,
  MerkleTrie,
  orderedTrieRoot,
  TrieError,
} from '../src/trie/index.js';
import { rng } from './rng.js';

const hex = (b: Uint8Array | null | undefined) => (b ? Buffer.from(b).toString('hex') : String(b));

function randomBytes(r: () => number, n: number, alphabet = 256): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * alphabet);
  return out;
}

/** Values from 1 byte (< 0x80 and not) through inline-size to well over 55 bytes. */
function randomValue(r: () => number): Uint8Array {
  const pick = r();
  if (pick < 0.15) return Uint8Array.of(Math.floor(r() * 256));
  if (pick < 0.55) return randomBytes(r, 2 + Math.floor(r() * 20));
  if (pick < 0.9) return randomBytes(r, 22 + Math.floor(r() * 60));
  return randomBytes(r, 100 + Math.floor(r() * 200));
}

type KeyGen = (r: () => number) => Uint8Array;
const keyGens: Record<string, KeyGen> = {
  // 32-byte keys, as in the secure state trie
  'fixed 32-byte keys': (r) => randomBytes(r, 32),
  // short keys over a tiny alphabet: long shared prefixes, keys that are prefixes of others
  'variable keys with shared prefixes': (r) => randomBytes(r, 1 + Math.floor(r() * 5), 3),
  // 8-byte keys differing only in their tail: long extensions
  'keys with a long common prefix': (r) => {
    const k = new Uint8Array(8).fill(0xab);
    k[6] = Math.floor(r() * 4);
    k[7] = Math.floor(r() * 16);
    return k;
  },
};

async function expectSameProof(ours: MerkleTrie, ref: MerklePatriciaTrie, key: Uint8Array, root: Uint8Array) {
  const proof = await ours.createProof(key);
  const expected = await createMerkleProof(ref, key);
  expect(proof.map(hex)).toEqual(expected.map(hex));
  if (proof.length > 0) {
    const value = await verifyMerkleProof(key, proof, { root, useKeyHashing: false });
    expect(hex(value ?? undefined)).toBe(hex(await ours.get(key)));
  }
}

beforeAll(async () => {
  await initKeccak();
});

describe('MerkleTrie basics', () => {
  it('exports the public API (names pinned)', async () => {
    expect(Object.keys(await import('../src/trie/index.js')).sort()).toEqual([
      'AppendOnlyOrderedTrie',
      'EMPTY_TRIE_ROOT',
      'MemoryNodeStore',
      'MerkleTrie',
      'TrieError',
      'orderedTrieRoot',
    ]);
  });

  it('the empty trie has the empty root and no nodes to commit', async () => {
    const t = MerkleTrie.empty();
    const ref = await createMPT();
    expect(hex(t.root())).toBe(hex(ref.root()));
    expect(hex(EMPTY_TRIE_ROOT)).toBe('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421');
    expect(t.commit().nodes).toEqual([]);
    expect(await t.get(Uint8Array.of(1))).toBeUndefined();
    expect(await t.createProof(Uint8Array.of(1))).toEqual([]);
  });

  it('a single key: small (inline-size) and large root nodes', async () => {
    for (const value of [Uint8Array.of(5), randomBytes(rng(1), 80)]) {
      const key = Uint8Array.of(1, 2, 3);
      const t = MerkleTrie.empty();
      const ref = await createMPT();
      await t.put(key, value);
      await ref.put(key, value);
      expect(hex(t.root())).toBe(hex(ref.root()));
      expect(hex(await t.get(key))).toBe(hex(value));
      await expectSameProof(t, ref, key, t.root());
      // the root node is listed even when shorter than 32 bytes, so the trie can be reopened
      const store = new MemoryNodeStore();
      const { root, nodes } = t.commit();
      expect(nodes.length).toBe(1);
      store.putAll(nodes);
      const reopened = MerkleTrie.at(root, store);
      expect(hex(await reopened.get(key))).toBe(hex(value));
      await reopened.put(Uint8Array.of(1, 2, 4), value);
      await ref.put(Uint8Array.of(1, 2, 4), value);
      expect(hex(reopened.root())).toBe(hex(ref.root()));
    }
  });

  it('deleting back to one key collapses branches into a leaf; deleting all gives the empty root', async () => {
    const t = MerkleTrie.empty();
    const keys = [[0x12, 0x34], [0x12, 0x35], [0x12], [0x13, 0x00], [0x12, 0x34, 0x56]].map((k) =>
      Uint8Array.from(k),
    );
    for (const k of keys) await t.put(k, randomBytes(rng(k.length), 40));
    const single = MerkleTrie.empty();
    await single.put(keys[3], randomBytes(rng(2), 40));
    for (const k of [keys[0], keys[1], keys[2], keys[4]]) await t.del(k);
    expect(hex(t.root())).toBe(hex(single.root()));
    await t.del(keys[3]);
    expect(hex(t.root())).toBe(hex(EMPTY_TRIE_ROOT));
  });

  it('put with an empty value deletes; no-op updates keep the root', async () => {
    const t = MerkleTrie.empty();
    await t.put(Uint8Array.of(1), Uint8Array.of(9, 9));
    const before = t.root();
    await t.put(Uint8Array.of(2), Uint8Array.of(7));
    await t.put(Uint8Array.of(2), new Uint8Array(0));
    await t.del(Uint8Array.of(3));
    await t.put(Uint8Array.of(1), Uint8Array.of(9, 9));
    expect(hex(t.root())).toBe(hex(before));
    expect(await t.get(Uint8Array.of(2))).toBeUndefined();
  });

  it('copy() is independent of the original', async () => {
    const t = MerkleTrie.empty();
    await t.update([
      [Uint8Array.of(1), Uint8Array.of(1)],
      [Uint8Array.of(2), Uint8Array.of(2)],
    ]);
    const root = t.root();
    const c = t.copy();
    await c.put(Uint8Array.of(3), Uint8Array.of(3));
    expect(hex(t.root())).toBe(hex(root));
    expect(hex(c.root())).not.toBe(hex(root));
    expect(await t.get(Uint8Array.of(3))).toBeUndefined();
  });

  it('a node missing from the store is a TRIE_MISSING_NODE error', async () => {
    const t = MerkleTrie.at(keccak256(Uint8Array.of(1)), new MemoryNodeStore());
    await expect(t.get(Uint8Array.of(1))).rejects.toThrow(TrieError);
    await expect(t.get(Uint8Array.of(1))).rejects.toMatchObject({ code: 'TRIE_MISSING_NODE' });
  });

  it('commit lists each new node keyed by its keccak256 and then nothing until the next change', async () => {
    const t = MerkleTrie.empty();
    const r = rng(7);
    for (let i = 0; i < 200; i++) await t.put(randomBytes(r, 32), randomValue(r));
    const { root, nodes } = t.commit();
    expect(hex(root)).toBe(hex(t.root()));
    for (const [hash, enc] of nodes) expect(hex(hash)).toBe(hex(keccak256(enc)));
    expect(t.commit().nodes).toEqual([]);
  });
});

describe.each(Object.entries(keyGens))('MerkleTrie vs @ethereumjs/mpt: %s', (_name, keyGen) => {
  it.each([1, 2, 3])(
    'random batches, seed %i: same roots, values, proofs, and after reopening',
    async (seed) => {
      const r = rng(seed * 1000 + keyGen.length);
      const ref = await createMPT({ useKeyHashing: false });
      const store = new MemoryNodeStore();
      let t = MerkleTrie.empty(store);
      const model = new Map<string, Uint8Array>();
      const known: Uint8Array[] = [];

      for (let batch = 0; batch < 12; batch++) {
        const ops: [Uint8Array, Uint8Array | undefined][] = [];
        const size = batch === 0 ? 150 : 1 + Math.floor(r() * 40);
        for (let i = 0; i < size; i++) {
          const p = r();
          const key = p < 0.6 || known.length === 0 ? keyGen(r) : known[Math.floor(r() * known.length)];
          const value = p < 0.75 ? randomValue(r) : undefined;
          ops.push([key, value]);
        }
        // half the batches go through update(), half through put/del
        if (batch % 2 === 0) await t.update(ops);
        for (const [key, value] of ops) {
          if (batch % 2 === 1) {
            if (value === undefined) await t.del(key);
            else await t.put(key, value);
          }
          if (value === undefined) {
            await ref.del(key);
            model.delete(hex(key));
          } else {
            await ref.put(key, value);
            model.set(hex(key), value);
            known.push(key);
          }
        }
        const root = t.root();
        expect(hex(root), `batch ${batch}`).toBe(hex(ref.root()));

        for (let i = 0; i < 10; i++) {
          const key = i % 2 === 0 && known.length > 0 ? known[Math.floor(r() * known.length)] : keyGen(r);
          expect(hex(await t.get(key))).toBe(hex(model.get(hex(key))));
          await expectSameProof(t, ref, key, root);
        }

        // commit; then continue on a trie reopened from the store, or with deep nodes evicted
        const committed = t.commit();
        expect(hex(committed.root)).toBe(hex(root));
        store.putAll(committed.nodes);
        if (batch % 4 === 1) {
          t = MerkleTrie.at(committed.root, store);
          expect(hex(t.root())).toBe(hex(root));
        } else if (batch % 4 === 3) {
          t.evict(batch % 3);
          expect(hex(t.root())).toBe(hex(root));
        }
      }
      // a fresh trie at the final root reads every key from the store alone
      const cold = MerkleTrie.at(t.root(), store);
      for (const [k, v] of model) expect(hex(await cold.get(Buffer.from(k, 'hex')))).toBe(hex(v));
    },
  );
});

/** A store that answers asynchronously, like LevelDB, and records how many reads overlap. */
class SlowStore extends MemoryNodeStore {
  inFlight = 0;
  maxInFlight = 0;
  reads = 0;
  readHashes = new Set<string>();
  override async get(hash: Uint8Array): Promise<Uint8Array | undefined> {
    this.reads++;
    this.readHashes.add(hex(hash));
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 1));
    this.inFlight--;
    return super.get(hash);
  }
}

/** A store with getMany (as LevelDB has), answering asynchronously. */
class BatchStore extends MemoryNodeStore {
  calls = 0;
  asked = 0;
  async getMany(hashes: Uint8Array[]): Promise<(Uint8Array | undefined)[]> {
    this.calls++;
    this.asked += hashes.length;
    await new Promise((resolve) => setTimeout(resolve, 1));
    return Promise.all(hashes.map((h) => super.get(h)));
  }
}

/** A trie of `n` random keys, committed into `store`. */
async function storedTrie<S extends MemoryNodeStore>(store: S, r: () => number, n: number) {
  const t = MerkleTrie.empty(store);
  const keys = Array.from({ length: n }, () => randomBytes(r, 32));
  await t.update(keys.map((k) => [k, randomValue(r)]));
  const { root, nodes } = t.commit();
  store.putAll(nodes);
  return { t, keys, root };
}

describe('MerkleTrie over an asynchronous store', () => {
  it('update() reads the nodes of a batch concurrently, each once, and concurrent batches compose', async () => {
    const r = rng(42);
    const store = new SlowStore();
    const { keys, root } = await storedTrie(store, r, 400);

    const a = keys.slice(0, 100).map((k) => [k, randomValue(r)] as const);
    const b = keys.slice(100, 200).map((k) => [k, r() < 0.5 ? undefined : randomValue(r)] as const);
    const expected = MerkleTrie.at(root, store);
    await expected.update([...a, ...b]);

    store.reads = 0;
    store.readHashes.clear();
    const cold = MerkleTrie.at(root, store);
    await Promise.all([cold.update(a), cold.update(b), cold.get(keys[300])]);
    expect(hex(cold.root())).toBe(hex(expected.root()));
    expect(store.maxInFlight).toBeGreaterThan(10);
    // each stored node is read once, even when both batches need it at the same time
    expect(store.reads).toBe(store.readHashes.size);
  });
});

describe('MerkleTrie over a store with getMany', () => {
  it('update() reads each round of nodes with one call; get() still uses get', async () => {
    const r = rng(43);
    const store = new BatchStore();
    const { t, keys, root } = await storedTrie(store, r, 500);
    const batch = keys.slice(0, 200).map((k, i) => [k, i % 3 === 0 ? undefined : randomValue(r)] as const);
    const warm = t.copy();
    await warm.update(batch);

    const cold = MerkleTrie.at(root, store);
    await Promise.all([cold.update(batch.slice(0, 100)), cold.update(batch.slice(100))]);
    expect(hex(cold.root())).toBe(hex(warm.root()));
    // one call per trie level (and per batch), not one per node
    expect(store.calls).toBeLessThanOrEqual(16);
    expect(store.asked).toBeGreaterThan(200);
    expect(await cold.get(keys[400])).toEqual(await t.get(keys[400]));
  });

  it('warm() reads the paths of keys, changes nothing, and the update after it reads nothing', async () => {
    const r = rng(44);
    const store = new BatchStore();
    const { keys, root } = await storedTrie(store, r, 500);
    // present keys, and absent ones (new accounts) whose paths end at a stored node
    const touched = [...keys.slice(0, 50), ...Array.from({ length: 50 }, () => randomBytes(r, 32))];
    const batch = touched.map((k) => [k, randomValue(r)] as const);
    const expected = MerkleTrie.at(root, store);
    await expected.update(batch);

    const trie = MerkleTrie.at(root, store);
    store.calls = 0;
    await trie.warm(touched);
    expect(store.calls).toBeGreaterThan(0);
    expect(hex(trie.root())).toBe(hex(root));
    expect(trie.commit().nodes).toEqual([]);
    store.calls = 0;
    await trie.update(batch);
    expect(store.calls).toBe(0);
    expect(hex(trie.root())).toBe(hex(expected.root()));
    // a copy taken before warming shares the loaded nodes
    const before = MerkleTrie.at(root, store);
    const copy = before.copy();
    await before.warm(touched);
    store.calls = 0;
    await copy.update(batch);
    expect(store.calls).toBe(0);
  });

  it('a node missing from a getMany store is TRIE_MISSING_NODE', async () => {
    const t = MerkleTrie.at(keccak256(Uint8Array.of(7)), new BatchStore());
    await expect(t.update([[Uint8Array.of(1), Uint8Array.of(1)]])).rejects.toMatchObject({
      code: 'TRIE_MISSING_NODE',
    });
  });
});

describe('MerkleTrie.update atomicity', () => {
  it('a batch that meets a node missing from the store changes nothing', async () => {
    const r = rng(5);
    const full = new MemoryNodeStore();
    const t = MerkleTrie.empty(full);
    const keys = Array.from({ length: 200 }, () => randomBytes(r, 32));
    await t.update(keys.map((k) => [k, randomValue(r)]));
    const { root, nodes } = t.commit();
    // a store that lost one deep node
    const partial = new MemoryNodeStore();
    partial.putAll(nodes.filter(([hash]) => hex(hash) !== hex(keccak256(nodes[0][1]))));
    const broken = MerkleTrie.at(root, partial);
    const batch = keys.map((k) => [k, undefined] as const);
    await expect(broken.update(batch)).rejects.toMatchObject({ code: 'TRIE_MISSING_NODE' });
    expect(hex(broken.root())).toBe(hex(root));
    expect(hex(await broken.get(keys[199]))).toBe(hex(await t.get(keys[199])));
  });
});

/** Puts a random value at each key, in our trie and in the reference one. */
async function putRandom(t: MerkleTrie, ref: MerklePatriciaTrie, keys: Uint8Array[], r: () => number) {
  for (const k of keys) {
    const v = randomValue(r);
    await t.put(k, v);
    await ref.put(k, v);
  }
}

/**
 * A store that answers with views into buffers it reuses (as a database's read buffer or a
 * cache's slab may be): each buffer is scribbled over a turn after its read.
 */
class ReusedBufferStore extends MemoryNodeStore {
  override async get(hash: Uint8Array): Promise<Uint8Array | undefined> {
    const enc = await super.get(hash);
    if (!enc) return undefined;
    const buf = new Uint8Array(enc.length + 64);
    buf.set(enc, 32);
    setImmediate(() => buf.fill(0xee));
    return buf.subarray(32, 32 + enc.length);
  }
}

describe('MerkleTrie over a store that reuses its buffers', () => {
  it('keeps nothing of the buffer a node was read from: roots, reads and proofs stay right', async () => {
    const r = rng(23);
    const store = new ReusedBufferStore();
    const ref = await createMPT();
    const t = MerkleTrie.empty(store);
    const keys = Array.from({ length: 400 }, () => randomBytes(r, 32));
    await putRandom(t, ref, keys, r);
    store.putAll(t.commit().nodes);
    t.evict(1);
    // Reads decode branches from the store's buffers, which are scribbled over afterwards.
    for (const k of keys.slice(0, 40)) expect(hex(await t.get(k))).toBe(hex(await ref.get(k)));
    await new Promise((resolve) => setImmediate(resolve));
    // Edits beside the nodes read re-encode them from their children's hashes.
    for (const k of keys.slice(40, 80)) {
      await t.put(k, Uint8Array.of(7));
      await ref.put(k, Uint8Array.of(7));
    }
    expect(hex(t.root())).toBe(hex(ref.root()));
    await expectSameProof(t, ref, keys[5], t.root());
    // Their untouched children are read through those hashes.
    for (const k of keys.slice(80, 160)) expect(hex(await t.get(k))).toBe(hex(await ref.get(k)));
  });
});

describe('MerkleTrie.evict', () => {
  it('drops stored nodes below a depth; they are read again and results do not change', async () => {
    const r = rng(11);
    const store = new SlowStore();
    const ref = await createMPT();
    const t = MerkleTrie.empty(store);
    const keys = Array.from({ length: 300 }, () => randomBytes(r, 32));
    await putRandom(t, ref, keys, r);
    // an uncommitted change survives eviction
    store.putAll(t.commit().nodes);
    await t.put(keys[0], Uint8Array.of(1, 2, 3));
    await ref.put(keys[0], Uint8Array.of(1, 2, 3));
    t.evict(1);
    expect(hex(t.root())).toBe(hex(ref.root()));
    store.reads = 0;
    expect(hex(await t.get(keys[0]))).toBe('010203');
    for (const k of keys.slice(1, 20)) expect(hex(await t.get(k))).toBe(hex(await ref.get(k)));
    expect(store.reads).toBeGreaterThan(19);
    for (const k of keys.slice(20, 60)) {
      await t.del(k);
      await ref.del(k);
    }
    expect(hex(t.root())).toBe(hex(ref.root()));
    await expectSameProof(t, ref, keys[70], t.root());
    store.putAll(t.commit().nodes);
    t.evict(0);
    expect(hex(t.root())).toBe(hex(ref.root()));
    expect(hex(await t.get(keys[99]))).toBe(hex(await ref.get(keys[99])));
  });
});

describe('secure state trie (keys hashed by the caller)', () => {
  it('matches @ethereumjs/mpt with useKeyHashing, including after reopening cold', async () => {
    const r = rng(99);
    const ref = await createMPT({ useKeyHashing: true });
    const store = new MemoryNodeStore();
    let t = MerkleTrie.empty(store);
    const addresses = Array.from({ length: 300 }, () => randomBytes(r, 20));
    for (let round = 0; round < 4; round++) {
      const updates: [Uint8Array, Uint8Array | undefined][] = [];
      for (let i = 0; i < 120; i++) {
        const a = addresses[Math.floor(r() * addresses.length)];
        const account =
          r() < 0.1
            ? undefined
            : RLP.encode([
                Math.floor(r() * 100),
                randomBytes(r, 1 + Math.floor(r() * 12)),
                EMPTY_TRIE_ROOT,
                keccak256(new Uint8Array(0)),
              ]);
        updates.push([a, account]);
        if (account === undefined) await ref.del(a);
        else await ref.put(a, account);
      }
      await t.update(updates.map(([a, v]) => [keccak256(a), v]));
      expect(hex(t.root())).toBe(hex(ref.root()));
      const a = addresses[round];
      const proof = await t.createProof(keccak256(a));
      expect(proof.map(hex)).toEqual((await createMerkleProof(ref, a)).map(hex));
      const { root, nodes } = t.commit();
      store.putAll(nodes);
      t = MerkleTrie.at(root, store);
    }
  });
});

describe('orderedTrieRoot', () => {
  it('handles values of 64 KiB and more (3-byte RLP lengths), as a large transaction has', async () => {
    const r = rng(77);
    const values = [
      randomBytes(r, 100_000),
      randomBytes(r, 70_000),
      Uint8Array.of(1),
      randomBytes(r, 65_536),
    ];
    const ref = await createMPT();
    for (let i = 0; i < values.length; i++) await ref.put(RLP.encode(i), values[i]);
    expect(hex(orderedTrieRoot(values))).toBe(hex(ref.root()));
  });

  it.each([0, 1, 2, 16, 127, 128, 129, 300])(
    'matches @ethereumjs/mpt keyed by RLP(index) for %i values',
    async (n) => {
      const r = rng(n + 5);
      const values = Array.from({ length: n }, () => randomValue(r));
      const ref = await createMPT();
      for (let i = 0; i < n; i++) await ref.put(RLP.encode(i), values[i]);
      expect(hex(orderedTrieRoot(values))).toBe(hex(ref.root()));
    },
  );

  it('matches a trie keyed by RLP(index) past the index keys it keeps (16,384), and again after them', async () => {
    const r = rng(16_400);
    const values = Array.from({ length: 16_400 }, () => Uint8Array.of(1 + Math.floor(r() * 200)));
    // MerkleTrie (checked against @ethereumjs/mpt above): mpt takes seconds for 16,400 puts.
    const ref = MerkleTrie.empty();
    for (let i = 0; i < values.length; i++) await ref.put(RLP.encode(i), values[i]);
    expect(hex(orderedTrieRoot(values))).toBe(hex(ref.root()));
    // The kept keys are shared by every trie: a second, shorter one built after them is right too.
    const few = values.slice(0, 200).reverse();
    const ref2 = await createMPT();
    for (let i = 0; i < few.length; i++) await ref2.put(RLP.encode(i), few[i]);
    expect(hex(orderedTrieRoot(few))).toBe(hex(ref2.root()));
  });

  it('AppendOnlyOrderedTrie gives the same root after every chunk appended (a block built flashblock by flashblock)', async () => {
    const r = rng(31);
    const values = Array.from({ length: 700 }, () => randomValue(r));
    const t = new AppendOnlyOrderedTrie();
    expect(hex(t.root())).toBe(hex(orderedTrieRoot([])));
    let at = 0;
    while (at < values.length) {
      const n = Math.floor(r() * 150);
      t.append(values.slice(at, at + n));
      at = Math.min(values.length, at + n);
      expect(t.size).toBe(at);
      expect(hex(t.root())).toBe(hex(orderedTrieRoot(values.slice(0, at))));
    }
  });

  it('AppendOnlyOrderedTrie keeps its roots right as it folds its finished parts, over 3-byte keys and empty values', async () => {
    const r = rng(4500);
    // Empty values are left out of the trie (their slots stay open); inline-sized ones too.
    const values = Array.from({ length: 4_500 }, (_, i) =>
      i % 997 === 5 ? new Uint8Array(0) : i % 3 === 0 ? Uint8Array.of(i & 0x7f) : randomValue(r),
    );
    const t = new AppendOnlyOrderedTrie();
    let at = 0;
    while (at < values.length) {
      const n = 1 + Math.floor(r() * 700);
      t.append(values.slice(at, at + n));
      at = Math.min(values.length, at + n);
      expect(hex(t.root())).toBe(hex(orderedTrieRoot(values.slice(0, at))));
    }
    expect(hex(t.root())).toBe(hex(orderedTrieRoot(values)));
  });
});
