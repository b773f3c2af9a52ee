/**
 * The bulk builder (src/trie/bulk.ts) against one insert at a time, on random inputs: the trie
 * of sorted keys built bottom-up, and a large batch merged into a stored trie (puts, overwrites,
 * deletes, keys that are prefixes of others) give the same root and the same values as the same
 * changes applied one key at a time, and what the bulk trie commits reopens it from the store.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { initKeccak, keccak256 } from '../src/crypto/keccak.js';
import { buildSorted, sortUpdates } from '../src/trie/bulk.js';
import { MemoryNodeStore, MerkleTrie } from '../src/trie/index.js';
import { hashNode } from '../src/trie/nodeCodec.js';
import { rng } from './rng.js';

const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : String(b));

function bytes(r: () => number, n: number, alphabet = 256): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * alphabet);
  return out;
}

function value(r: () => number): Uint8Array {
  const pick = r();
  if (pick < 0.2) return Uint8Array.of(Math.floor(r() * 256));
  if (pick < 0.6) return bytes(r, 2 + Math.floor(r() * 20));
  return bytes(r, 30 + Math.floor(r() * 80));
}

const keyGens: Record<string, (r: () => number) => Uint8Array> = {
  'secure 32-byte keys': (r) => keccak256(bytes(r, 20)),
  'short keys, prefixes of each other': (r) => bytes(r, 1 + Math.floor(r() * 4), 3),
  'a long shared prefix': (r) =>
    Uint8Array.of(0xab, 0xab, 0xab, 0xab, Math.floor(r() * 3), Math.floor(r() * 16)),
};

/** The trie after `entries` applied one put/del at a time. */
async function oneAtATime(base: MerkleTrie, entries: [Uint8Array, Uint8Array][]): Promise<MerkleTrie> {
  const t = base.copy();
  for (const [k, v] of entries) await t.put(k, v);
  return t;
}

beforeAll(async () => {
  await initKeccak();
});

describe('bulk trie building', () => {
  for (const [name, gen] of Object.entries(keyGens)) {
    it(`${name}: buildSorted's root equals inserting one key at a time`, async () => {
      for (let seed = 1; seed <= 30; seed++) {
        const r = rng(seed);
        const n = 1 + Math.floor(r() * (seed < 10 ? 8 : 600));
        const entries: [Uint8Array, Uint8Array][] = [];
        for (let i = 0; i < n; i++) entries.push([gen(r), value(r)]);
        const { puts } = sortUpdates(entries);
        const ref = await oneAtATime(MerkleTrie.empty(), entries);
        const built = buildSorted(puts, 0, puts.length, 0);
        const ref32 = hashNode(built);
        const root = ref32.length === 32 ? ref32 : keccak256(ref32);
        expect(hex(root), `seed ${seed}`).toBe(hex(ref.root()));
      }
    });

    it(`${name}: a large update merged into a stored trie equals one change at a time`, async () => {
      for (let seed = 100; seed < 120; seed++) {
        const r = rng(seed);
        const store = new MemoryNodeStore();
        const first = MerkleTrie.empty(store);
        const initial: [Uint8Array, Uint8Array][] = [];
        const m = Math.floor(r() * 300);
        for (let i = 0; i < m; i++) initial.push([gen(r), value(r)]);
        for (const [k, v] of initial) await first.put(k, v);
        const c = first.commit();
        store.putAll(c.nodes);

        // puts of new keys, overwrites, deletes of present and absent keys, repeated keys
        const batch: [Uint8Array, Uint8Array][] = [];
        const n = 64 + Math.floor(r() * 500);
        for (let i = 0; i < n; i++) {
          const pick = r();
          if (pick < 0.5 || !initial.length) batch.push([gen(r), value(r)]);
          else if (pick < 0.75) batch.push([initial[Math.floor(r() * initial.length)][0], value(r)]);
          else if (pick < 0.9) batch.push([initial[Math.floor(r() * initial.length)][0], new Uint8Array(0)]);
          else batch.push([gen(r), new Uint8Array(0)]);
        }
        const ref = await oneAtATime(MerkleTrie.at(c.root, store), batch);
        const bulk = MerkleTrie.at(c.root, store);
        await bulk.update(batch);
        expect(hex(bulk.root()), `seed ${seed}`).toBe(hex(ref.root()));
        for (const [k] of batch) expect(hex(await bulk.get(k))).toBe(hex(await ref.get(k)));
        // What commit() lists is enough to reopen the trie at its root from the store.
        const after = bulk.commit();
        const reopenStore = new MemoryNodeStore();
        reopenStore.putAll(c.nodes);
        reopenStore.putAll(after.nodes);
        const reopened = MerkleTrie.at(after.root, reopenStore);
        for (const [k] of [...initial, ...batch])
          expect(hex(await reopened.get(k))).toBe(hex(await ref.get(k)));
      }
    });
  }
});
