/**
 * The state root of a block being built, kept up to date one flashblock at a time: each
 * layer's diff is folded into ONE account trie (and one storage trie per account whose slots
 * changed) that lives for the whole block, so a flashblock costs what it changed, not what the
 * block holds so far. `finish()` gives the seal what `computeStateRoot` would for the block's
 * whole diff: the same root, the final accounts and only the nodes reachable from that root.
 *
 *   parent root ─ apply(layer 1) ─> root 1 ─ apply(layer 2) ─> root 2 ... ─ finish() ─> RootResult
 */
import type { Account } from '@ethereumjs/util';
import { encodeAccount } from './accountCodec.js';
import { keccak256 } from '../crypto/keccak.js';
import { hexToBytes } from '../primitives/hex.js';
import type { TrieNodeStore } from '../trie/types.js';
import { addPathNodes, type PathNode } from '../storage/pathNodes.js';
import { copyAccount } from './flatState.js';
import type { StateDiff } from './journaledState.js';
import { DELETED_ACCOUNT } from './forkState.js';
import { type RootResult, slotUpdates } from './stateRoot.js';
import type { StateReader } from './stateReader.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import { openTrie, type StateTrie } from './trieAdapter.js';

const EMPTY = new Uint8Array(0);

export class IncrementalStateRoot {
  private readonly trie: StateTrie;
  /** Storage tries of the accounts whose slots this block changed, at their current roots. */
  private readonly storage = new Map<string, StateTrie>();
  /** Every account this block changed, as it is now (null = deleted), storage root included. */
  private readonly accounts = new Map<string, Account | null>();
  /** Their RLP as put in the trie, reused by the seal's flat-state write (docs/decisions/0021). */
  private readonly encoded = new Map<string, Uint8Array>();
  private current: Uint8Array;

  constructor(
    baseRoot: Uint8Array,
    private readonly store: TrieNodeStore,
    /** The account trie at `baseRoot` with nodes in memory (the parent's seal); copied, not changed. */
    warm?: StateTrie,
    /** A fork's tries keep zeroed slots (stateRoot.ts slotUpdates) and deleted accounts as leaves. */
    private readonly keepZeros = false,
  ) {
    this.trie = warm?.copy() ?? openTrie(baseRoot, store);
    this.current = baseRoot;
  }

  /**
   * An independent copy at the same root, sharing every node (tries are copied in O(1)): work
   * that may be dropped (a flashblock not yet on disk) is done on a fork and the fork kept.
   */
  fork(): IncrementalStateRoot {
    const f = new IncrementalStateRoot(this.current, this.store, this.trie, this.keepZeros);
    for (const [k, st] of this.storage) f.storage.set(k, st.copy());
    for (const [k, a] of this.accounts) f.accounts.set(k, a);
    for (const [k, e] of this.encoded) f.encoded.set(k, e);
    return f;
  }

  get root(): Uint8Array {
    return this.current;
  }

  /**
   * Folds one layer's changes in and returns the new root. `after` reads the state as of the end
   * of that layer (an account whose slots changed but whose fields did not is read from it).
   * `only`: just these accounts of the diff (the others are in already, as they are now);
   * folding a key again with its current value is harmless.
   */
  async apply(diff: StateDiff, after: StateReader, only?: Iterable<string>): Promise<Uint8Array> {
    const updates: [Uint8Array, Uint8Array][] = [];
    const keys = only
      ? [...only].filter((k) => diff.accounts.has(k) || diff.storage.has(k))
      : new Set([...diff.accounts.keys(), ...diff.storage.keys()]);
    for (const k of keys) {
      const addr = hexToBytes(k);
      const changed = diff.accounts.get(k);
      // A copy: the layer's objects keep the sealed storage root, which later layers read.
      const read = changed === undefined ? await after.readAccount(addr) : changed;
      const account = read && copyAccount(read);
      const key = keccak256(addr);
      if (!account) {
        this.accounts.set(k, null);
        this.encoded.delete(k);
        this.storage.delete(k);
        // A fork keeps the deletion as a leaf: no leaf would read the remote's account.
        updates.push([key, this.keepZeros ? DELETED_ACCOUNT : EMPTY]);
        continue;
      }
      const slots = diff.storage.get(k);
      let st = this.storage.get(k);
      if (slots?.cleared) {
        st = openTrie(EMPTY_TRIE_ROOT, this.store, key);
        this.storage.set(k, st);
      } else if (slots?.slots.size && !st) {
        st = openTrie(account.storageRoot, this.store, key);
        this.storage.set(k, st);
      }
      if (st && slots?.slots.size) await st.update(slotUpdates(slots.slots, this.keepZeros));
      if (st) account.storageRoot = st.root();
      const rlp = encodeAccount(account);
      this.accounts.set(k, account);
      this.encoded.set(k, rlp);
      updates.push([key, rlp]);
    }
    if (updates.length) {
      await this.trie.update(updates);
      this.current = this.trie.root();
    }
    return this.current;
  }

  /**
   * Reads the account-trie nodes on the paths of `addresses` now, so that the flashblock that
   * changes them (`apply`) does not wait on the database for them.
   */
  warm(addresses: Uint8Array[]): Promise<void> {
    return this.trie.warm(addresses.map((a) => keccak256(a)));
  }

  /** The block's root, its new trie nodes (final versions only) and its changed accounts. */
  finish(): RootResult {
    const nodes: PathNode[] = [];
    for (const [k, st] of this.storage) {
      // A deleted account's storage trie was dropped with it; one recreated has its own.
      if (!this.accounts.get(k)) continue;
      addPathNodes(nodes, keccak256(hexToBytes(k)), st.commit().nodes);
    }
    const c = this.trie.commit();
    addPathNodes(nodes, undefined, c.nodes);
    return {
      root: c.root,
      nodes,
      accounts: new Map(this.accounts),
      encoded: new Map(this.encoded),
      trie: this.trie,
    };
  }
}
