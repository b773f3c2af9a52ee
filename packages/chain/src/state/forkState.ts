/**
 * The state below a fork (`--fork-url`): what the remote holds at the fork block, read through
 * ForkSource (storage/), under everything written locally since.
 *
 *   flat state (latest) ─ key never written since the fork ─> ForkState ─> ForkSource
 *   trie at a block > N ─ key not in the local trie       ─> ForkState ─> ForkSource
 *
 * Roots on a fork (docs/decisions/0144-fork-reads.md): the fork block keeps the remote's header
 * and state root; the tries of later blocks hold only the accounts written since the fork (each
 * with a storage trie of the slots written since, zeros kept as tombstones; deleted accounts kept
 * as DELETED_ACCOUNT leaves), so a block's
 * stateRoot commits to what this node changed, not to the whole world.
 */
import { Account, KECCAK256_NULL } from '@ethereumjs/util';
import { equalBytes } from '../primitives/hex.js';
import type { ChainStore } from '../storage/chainStore.js';
import type { ForkSource } from '../storage/forkSource.js';
import { keys } from '../storage/keys.js';
import type { StateReader } from './stateReader.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';

const EMPTY = new Uint8Array(0);

/** What readers need to know of a fork: the remote's root at the fork block, and the state there. */
export interface ForkBase {
  /** The fork block's state root (the remote's): its local trie is the empty one. */
  root: Uint8Array;
  /** The fork block's number. */
  number: bigint;
  below: StateReader;
  /** The remote's state at an older block (not kept: the remote answers each read). */
  at(blockNumber: bigint): StateReader;
}

/**
 * A fork's local trie keeps an account deleted since the fork as this leaf (RLP of the empty
 * string, never an account's RLP, which is a list): a missing key means "not written since the
 * fork, ask the remote", so a deletion must stay visible as one at the blocks after it, as the
 * flat state's empty values do at the latest (docs/decisions/0302-deleted-accounts-on-a-fork.md).
 */
export const DELETED_ACCOUNT = Uint8Array.of(0x80);

export function isDeletedAccount(leaf: Uint8Array): boolean {
  return leaf.length === 1 && leaf[0] === 0x80;
}

/** The trie root to open for a block's stateRoot: the empty trie for the fork block itself. */
export function localRoot(root: Uint8Array, fork: ForkBase | undefined): Uint8Array {
  return fork && equalBytes(root, fork.root) ? EMPTY_TRIE_ROOT : root;
}

export class ForkState implements StateReader {
  constructor(
    readonly source: ForkSource,
    private readonly store: Pick<ChainStore, 'get'>,
  ) {}

  async readAccount(address: Uint8Array): Promise<Account | undefined> {
    const a = await this.source.account(address);
    // The storage root is the local one: no slot of it has been written here yet.
    return a ? new Account(a.nonce, a.balance, EMPTY_TRIE_ROOT, a.codeHash) : undefined;
  }

  /** Many accounts in one remote batch (the builder's prefetch of a pass's recipients). */
  async readAccounts(addresses: Uint8Array[]): Promise<(Account | undefined)[]> {
    return (await this.source.accounts(addresses)).map((a) =>
      a ? new Account(a.nonce, a.balance, EMPTY_TRIE_ROOT, a.codeHash) : undefined,
    );
  }

  readStorage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    return this.source.storage(address, slot);
  }

  async readCode(codeHash: Uint8Array): Promise<Uint8Array> {
    if (equalBytes(codeHash, KECCAK256_NULL)) return EMPTY;
    return (await this.store.get(keys.code(codeHash))) ?? EMPTY;
  }
}
