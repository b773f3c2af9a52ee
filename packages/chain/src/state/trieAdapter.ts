/**
 * The one seam between state/ and the Merkle-Patricia trie: trie/'s MerkleTrie (in-memory
 * nodes, deferred hashing). Keys are already hashed (secure-trie keys); values are leaf bytes.
 */
import { MerkleTrie } from '../trie/index.js';
import type { TrieNodeEntry, TrieNodeStore, TrieUpdate } from '../trie/types.js';

export interface StateTrie {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /** Applies puts (non-empty value) and deletes (empty value) in one pass. */
  update(entries: Iterable<TrieUpdate>): Promise<void>;
  /** Reads the stored nodes on the paths of `keys` into memory; the content does not change. */
  warm(keys: Iterable<Uint8Array>): Promise<void>;
  /** Root now (hashes only what changed since the last call). */
  root(): Uint8Array;
  /** Root now, plus the nodes created since the last commit (to persist). */
  commit(): { root: Uint8Array; nodes: TrieNodeEntry[] };
  createProof(key: Uint8Array): Promise<Uint8Array[]>;
  /** An independent trie sharing all nodes, O(1): speculative work on a warm trie. */
  copy(): StateTrie;
  /** Forgets committed nodes below `keepDepth` (read again from the store when touched). */
  evict(keepDepth: number): void;
}

/** `owner`: keccak(address) for an account's storage trie, nothing for the account trie. */
export function openTrie(root: Uint8Array, store: TrieNodeStore, owner?: Uint8Array): StateTrie {
  return MerkleTrie.at(root, store, owner);
}
