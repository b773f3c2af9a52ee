/**
 * State at any sealed root, read through the trie nodes in storage: how every state method
 * answers for past blocks (the flat maps only hold the latest state).
 */
import { RLP } from '@ethereumjs/rlp';
import { type Account, createAccountFromRLP } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import type { TrieNodeStore } from '../trie/types.js';
import { type ForkBase, isDeletedAccount, localRoot } from './forkState.js';
import type { StateReader } from './stateReader.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import { openTrie, type StateTrie } from './trieAdapter.js';

const EMPTY = new Uint8Array(0);

export class TrieStateReader implements StateReader {
  private accountTrie?: StateTrie;
  private readonly storageTries = new Map<string, StateTrie>();
  /** The trie actually opened: the empty one for a fork's fork block (forkState.ts). */
  private readonly trieRoot: Uint8Array;

  constructor(
    readonly root: Uint8Array,
    private readonly nodes: TrieNodeStore,
    private readonly code: (hash: Uint8Array) => Promise<Uint8Array | undefined>,
    /** On a fork: keys the local trie does not hold are the remote's at the fork block. */
    private readonly fork?: ForkBase,
  ) {
    this.trieRoot = localRoot(root, fork);
  }

  trie(): StateTrie {
    this.accountTrie ??= openTrie(this.trieRoot, this.nodes);
    return this.accountTrie;
  }

  /**
   * The account as the local trie holds it: undefined, not in it; null, deleted since the fork
   * (a fork's DELETED_ACCOUNT leaf: the remote's account is not there any more).
   */
  async localAccount(address: Uint8Array): Promise<Account | null | undefined> {
    const raw = await this.trie().get(keccak256(address));
    if (!raw) return undefined;
    return isDeletedAccount(raw) ? null : createAccountFromRLP(raw);
  }

  async readAccount(address: Uint8Array): Promise<Account | undefined> {
    const local = await this.localAccount(address);
    if (local !== undefined) return local ?? undefined;
    return this.fork?.below.readAccount(address);
  }

  async storageTrie(address: Uint8Array): Promise<StateTrie | undefined> {
    return this.storageOf(address, await this.localAccount(address));
  }

  private storageOf(address: Uint8Array, account: Account | null | undefined): StateTrie | undefined {
    if (!account || equalBytes(account.storageRoot, EMPTY_TRIE_ROOT)) return undefined;
    const k = bytesToHex(address);
    let t = this.storageTries.get(k);
    if (!t) {
      t = openTrie(account.storageRoot, this.nodes, keccak256(address));
      this.storageTries.set(k, t);
    }
    return t;
  }

  async readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const account = await this.localAccount(address);
    // Deleted since the fork: none of the remote's slots is left.
    if (account === null) return EMPTY;
    const t = this.storageOf(address, account);
    const raw = t && (await t.get(keccak256(slot)));
    if (raw) return RLP.decode(raw) as Uint8Array;
    // On a fork, a slot not written since the fork (zeros written are kept: RLP of empty).
    return this.fork ? this.fork.below.readStorage(address, slot) : EMPTY;
  }

  async readCode(codeHash: Uint8Array): Promise<Uint8Array> {
    return (await this.code(codeHash)) ?? (await this.fork?.below.readCode(codeHash)) ?? EMPTY;
  }
}
