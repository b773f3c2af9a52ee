/**
 * State at any sealed root, read through the trie nodes in storage: how every state method
 * answers for past blocks (the flat maps only hold the latest state).
 */
import { RLP } from '@ethereumjs/rlp';
import { type Account, createAccountFromRLP } from '@ethereumjs/util';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import type { TrieNodeStore } from '../trie/types.js';
import type { StateReader } from './stateReader.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import { openTrie, type StateTrie } from './trieAdapter.js';

const EMPTY = new Uint8Array(0);

export class TrieStateReader implements StateReader {
  private accountTrie?: StateTrie;
  private readonly storageTries = new Map<string, StateTrie>();

  constructor(
    readonly root: Uint8Array,
    private readonly nodes: TrieNodeStore,
    private readonly code: (hash: Uint8Array) => Promise<Uint8Array | undefined>,
  ) {}

  trie(): StateTrie {
    this.accountTrie ??= openTrie(this.root, this.nodes);
    return this.accountTrie;
  }

  async readAccount(address: Uint8Array): Promise<Account | undefined> {
    const raw = await this.trie().get(keccak256(address));
    return raw ? createAccountFromRLP(raw) : undefined;
  }

  async storageTrie(address: Uint8Array): Promise<StateTrie | undefined> {
    const account = await this.readAccount(address);
    if (!account || equalBytes(account.storageRoot, EMPTY_TRIE_ROOT)) return undefined;
    const k = bytesToHex(address);
    let t = this.storageTries.get(k);
    if (!t) {
      t = openTrie(account.storageRoot, this.nodes);
      this.storageTries.set(k, t);
    }
    return t;
  }

  async readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const t = await this.storageTrie(address);
    if (!t) return EMPTY;
    const raw = await t.get(keccak256(slot));
    return raw ? (RLP.decode(raw) as Uint8Array) : EMPTY;
  }

  async readCode(codeHash: Uint8Array): Promise<Uint8Array> {
    return (await this.code(codeHash)) ?? EMPTY;
  }
}
