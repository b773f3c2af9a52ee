// The pending block's state root is kept incrementally, one flashblock layer at a time
// (IncrementalStateRoot). It must equal, after every layer, the root computeStateRoot gives for
// the same operations applied in one overlay, and its seal result must carry the same accounts
// and exactly the nodes a reader needs to open every account and slot at that root.
import { Account, Address } from '@ethereumjs/util';
import { beforeAll, describe, expect, it } from 'vitest';
import { initKeccak } from '../src/crypto/keccak.js';
import { encodeAccount } from '../src/state/accountCodec.js';
import { IncrementalStateRoot } from '../src/state/incrementalRoot.js';
import { JournaledState } from '../src/state/journaledState.js';
import type { StateReader } from '../src/state/stateReader.js';
import { computeStateRoot } from '../src/state/stateRoot.js';
import { EMPTY_TRIE_ROOT } from '../src/trie/index.js';
import { TrieStateReader } from '../src/state/trieState.js';
import { MemoryNodeStore, type TrieNodeEntry } from '../src/trie/index.js';
import type { PathNode } from '../src/storage/pathNodes.js';
import { rng } from './rng.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const nothing: StateReader = {
  readAccount: async () => undefined,
  readStorage: async () => new Uint8Array(0),
  readCode: async () => new Uint8Array(0),
};

type Op = (s: JournaledState) => Promise<void>;

/** A random operation on one of 40 accounts: balance, nonce, slot write/zero, clear, delete. */
function randomOp(r: () => number): Op {
  const address = new Address(
    Uint8Array.from({ length: 20 }, (_, i) => (i === 19 ? Math.floor(r() * 40) : 7)),
  );
  const kind = r();
  const slot = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? Math.floor(r() * 12) : 0));
  const value = BigInt(Math.floor(r() * 1000));
  if (kind < 0.35)
    return async (s) => {
      const a = (await s.getAccount(address)) ?? new Account();
      a.balance += value + 1n;
      await s.putAccount(address, a);
    };
  if (kind < 0.8)
    return async (s) => {
      if (!(await s.getAccount(address))) await s.putAccount(address, new Account(1n));
      await s.putStorage(
        address,
        slot,
        value % 3n === 0n ? new Uint8Array(0) : Uint8Array.of(Number(value % 250n) + 1),
      );
    };
  if (kind < 0.9) return (s) => s.clearStorage(address);
  return (s) => s.deleteAccount(address);
}

/** A seal's nodes (keyed by path for the disk layer) as a hash-keyed store takes them. */
const byHash = (nodes: PathNode[]) =>
  nodes.map(([, hash, enc]) => [hash, enc, new Uint8Array(0)] as TrieNodeEntry);

/** A sealed base state: 120 random operations on 40 accounts, some with storage, in a store. */
async function sealedBase(r: () => number) {
  const store = new MemoryNodeStore();
  const genesis = new JournaledState(nothing);
  for (let i = 0; i < 120; i++) await randomOp(r)(genesis);
  const g = await computeStateRoot(EMPTY_TRIE_ROOT, nothing, genesis.diff(), store);
  store.putAll(byHash(g.nodes));
  return { store, g, base: new TrieStateReader(g.root, store, async () => undefined) };
}

describe('IncrementalStateRoot', () => {
  beforeAll(() => initKeccak());

  // On forks: each layer is applied to a fork that is then kept, beside a fork given other
  // changes and dropped (a flashblock whose journal write failed), which must change nothing.
  it.each([
    [1, 'in place'],
    [2, 'in place'],
    [3, 'in place'],
    [4, 'in place'],
    [5, 'in place'],
    [6, 'on forks'],
    [7, 'on forks'],
    [8, 'on forks'],
  ])('matches computeStateRoot after every layer (seed %i, %s)', async (seed, mode) => {
    const r = rng(seed);
    const { store, g, base } = await sealedBase(r);

    let inc = new IncrementalStateRoot(g.root, store, seed % 2 ? g.trie : undefined);
    const whole = new JournaledState(base); // every op in one overlay: the reference
    let top: StateReader = base;
    for (let layer = 0; layer < 8; layer++) {
      const l = new JournaledState(top);
      const ops = Array.from({ length: Math.floor(r() * 25) }, () => randomOp(r));
      for (const op of ops) {
        await op(l);
        await op(whole);
      }
      let root: Uint8Array;
      if (mode === 'on forks') {
        const before = hex(inc.root);
        const dropped = inc.fork();
        const other = new JournaledState(top);
        for (let i = 0; i < 10; i++) await randomOp(r)(other);
        await dropped.apply(other.diff(), other);
        const kept = inc.fork();
        root = await kept.apply(l.diff(), l);
        expect(hex(inc.root), `layer ${layer}: the original after its forks`).toBe(before);
        inc = kept;
      } else root = await inc.apply(l.diff(), l);
      const ref = await computeStateRoot(g.root, base, whole.diff(), store);
      expect(hex(root), `layer ${layer}`).toBe(hex(ref.root));
      top = l;
    }

    const done = inc.finish();
    const ref = await computeStateRoot(g.root, base, whole.diff(), store);
    expect(hex(done.root)).toBe(hex(ref.root));
    expect(new Map([...done.accounts].map(([k, a]) => [k, a && hex(a.serialize())]))).toEqual(
      new Map([...ref.accounts].map(([k, a]) => [k, a && hex(a.serialize())])),
    );
    // The sealed nodes are enough to read the final state back from a store of base + them.
    const sealed = new MemoryNodeStore();
    sealed.putAll(byHash(g.nodes));
    sealed.putAll(byHash(done.nodes));
    const after = new TrieStateReader(done.root, sealed, async () => undefined);
    for (let i = 0; i < 40; i++) {
      const addr = Uint8Array.from({ length: 20 }, (_, j) => (j === 19 ? i : 7));
      const k = `0x${hex(addr)}`;
      const want = ref.accounts.has(k) ? ref.accounts.get(k) : await base.readAccount(addr);
      const got = await after.readAccount(addr);
      expect(got && hex(got.serialize()), `account ${i}`).toBe(want ? hex(want.serialize()) : undefined);
      for (let s = 0; s < 12; s++) {
        const slot = Uint8Array.from({ length: 32 }, (_, j) => (j === 31 ? s : 0));
        expect(hex(await after.readStorage(addr, slot)), `account ${i} slot ${s}`).toBe(
          hex(await whole.readStorage(addr, slot)),
        );
      }
    }
    // The new nodes the final root reaches, and no superseded version from an earlier layer: any
    // node beyond the reference's is one the base already holds (a value changed, then back).
    const listed = new Set(done.nodes.map(([, h]) => hex(h)));
    for (const [, h] of ref.nodes) expect(listed.has(hex(h))).toBe(true);
    const wanted = new Set(ref.nodes.map(([, h]) => hex(h)));
    for (const [, h] of done.nodes) if (!wanted.has(hex(h))) expect(await store.get(h)).toBeDefined();
  });

  // Folded ahead (PendingBlock.rootAhead): a layer's operations come in chunks, some reverted
  // (a transaction that failed), and after each chunk only what changed since goes into the
  // layer's fork; its root must be the root of the layer folded at once.
  it.each([11, 12, 13, 14, 15, 16])(
    'folded ahead in parts, only what changed since, matches (seed %i)',
    async (seed) => {
      const r = rng(seed);
      const { store, g, base } = await sealedBase(r);

      let inc = new IncrementalStateRoot(g.root, store, g.trie);
      const whole = new JournaledState(base);
      let top: StateReader = base;
      for (let layer = 0; layer < 6; layer++) {
        const l = new JournaledState(top);
        let ahead: IncrementalStateRoot | undefined;
        for (let chunk = 0; chunk < 5; chunk++) {
          for (let i = Math.floor(r() * 8); i > 0; i--) {
            const op = randomOp(r);
            if (r() < 0.25) {
              // Executed, then reverted: its keys are in takeChanged(), its values are not in the diff.
              await l.checkpoint();
              await op(l);
              await randomOp(r)(l);
              await l.revert();
            } else {
              await op(l);
              await op(whole);
            }
          }
          const changed = l.takeChanged();
          if (ahead) await ahead.apply(l.diff(), l, changed);
          else {
            ahead = inc.fork();
            await ahead.apply(l.diff(), l);
          }
        }
        const ref = await computeStateRoot(g.root, base, whole.diff(), store);
        expect(hex(ahead!.root), `layer ${layer}`).toBe(hex(ref.root));
        inc = ahead!;
        top = l;
      }
      const ref = await computeStateRoot(g.root, base, whole.diff(), store);
      expect(hex(inc.finish().root)).toBe(hex(ref.root));
    },
  );
});

describe('encodeAccount', () => {
  it("gives Account.serialize()'s bytes for nonces and balances of every length", () => {
    const r = rng(7);
    const big = (bytes: number) => {
      let n = 0n;
      for (let i = 0; i < bytes; i++) n = (n << 8n) | BigInt(Math.floor(r() * 256));
      return n;
    };
    const cases = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 2n ** 64n - 1n, 2n ** 256n - 1n];
    for (let i = 0; i < 200; i++) cases.push(big(Math.floor(r() * 33)));
    for (const nonce of cases.slice(0, 40))
      for (const balance of cases) {
        const a = new Account(
          nonce % 2n ** 64n,
          balance,
          Uint8Array.from({ length: 32 }, () => 3),
          EMPTY_TRIE_ROOT,
        );
        expect(hex(encodeAccount(a))).toBe(hex(a.serialize()));
      }
  });
});
