/**
 * The trie's contracts with the rest of the chain node.
 *
 * Consumers: storage/ (implements TrieNodeStore over LevelDB and persists CommitResult.nodes),
 * builder/ (one batch of touched accounts per seal: update() -> commit()), rpc/ (eth_getProof via
 * createProof), execution/ (orderedTrieRoot for transactionsRoot / receiptsRoot / withdrawalsRoot).
 */

/**
 * Persisted trie nodes by hash: LevelDB in the node, a Map in tests.
 * Consumer: MerkleTrie, which loads nodes lazily on first touch and caches them.
 */
export interface TrieNodeStore {
  /**
   * The RLP encoding of the node whose keccak256 is `hash`, or undefined if unknown. `path`
   * (the nibbles from the root to the node) and `owner` (what `MerkleTrie.at` was given: the
   * keccak of the account for a storage trie) are for stores keyed by path; a store keyed by
   * hash ignores them. A path store answers undefined when the node it holds there is another.
   * `toward`: the keys (nibbles) whose walks wait on this node, when the reader knows them; a
   * store that makes a node with the nodes below it keeps only those along these keys
   * (storage/chainStore.ts), the ones the walks read next. Absent: the reader may go anywhere.
   */
  get(
    hash: Uint8Array,
    path?: Uint8Array,
    owner?: Uint8Array,
    toward?: readonly Uint8Array[],
  ): Promise<Uint8Array | undefined>;
  /**
   * Optional: many nodes in one call, in the order asked (LevelDB's `getMany`). When present,
   * `update()` reads each round of nodes it needs with one call instead of one `get` each.
   */
  getMany?(
    hashes: Uint8Array[],
    paths?: Uint8Array[],
    owner?: Uint8Array,
    toward?: (readonly Uint8Array[] | undefined)[],
  ): Promise<(Uint8Array | undefined)[]>;
}

/** A node to persist: its keccak256, its RLP encoding and its path (nibbles from the root). */
export type TrieNodeEntry = [hash: Uint8Array, encoded: Uint8Array, path: Uint8Array];

/** What `MerkleTrie.commit()` returns. */
export interface CommitResult {
  /** The state root after the commit (keccak256 of the root node's encoding). */
  root: Uint8Array;
  /**
   * The nodes created since the last commit (or since the trie was opened), to write to the
   * store; each is keyed by its hash, or by its path. Nodes whose encoding is shorter than 32 bytes live inside
   * their parent and are not listed, except the root node, which is always listed so that the
   * trie can be reopened at `root`. Empty when nothing changed. Encodings may be views into a
   * larger shared buffer (mind `byteOffset` if you reach for `.buffer`); they are never
   * modified afterwards.
   */
  nodes: TrieNodeEntry[];
}

/** One change in a batch: an empty or undefined value deletes the key. */
export type TrieUpdate = readonly [key: Uint8Array, value: Uint8Array | undefined];

export class TrieError extends Error {
  override readonly name = 'TrieError';
  constructor(
    readonly code: 'TRIE_MISSING_NODE' | 'TRIE_BAD_NODE',
    message: string,
  ) {
    super(message);
  }
}
