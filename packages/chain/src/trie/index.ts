/**
 * A Merkle-Patricia trie (Ethereum's, as in the yellow paper, appendix D) with in-memory nodes
 * and deferred hashing: changes rebuild only the touched paths, and `root()` / `commit()` hash
 * each changed node once. See README.md.
 */
export type { CommitResult, TrieNodeEntry, TrieNodeStore, TrieUpdate } from './types.js';
export { TrieError } from './types.js';
export { MemoryNodeStore } from './memoryNodeStore.js';
export { MerkleTrie, EMPTY_TRIE_ROOT } from './merkleTrie.js';
export { AppendOnlyOrderedTrie, orderedTrieRoot } from './orderedTrieRoot.js';
