/**
 * One subtree of a trie made from its leaves: the node at a path and every node below it, from
 * the keys under that path, sorted (storage/hashedState.ts makes the disk layer's deep nodes
 * this way instead of storing them: decision 0650).
 */
import { buildSorted, type Put } from './bulk.js';
import { collectNew } from './merkleTrie.js';
import { hashNode } from './nodeCodec.js';
import type { TrieNodeEntry } from './types.js';

/**
 * The subtree at `path` over `puts` (the trie's keys under `path` as nibbles, sorted, distinct,
 * at least one): its top's reference (its keccak, or its encoding when under 32 bytes) and its
 * nodes of 32 bytes or more with their paths, the top last.
 */
export function buildSubtree(
  puts: readonly Put[],
  path: Uint8Array,
): { ref: Uint8Array; nodes: TrieNodeEntry[] } {
  const top = buildSorted(puts, 0, puts.length, path.length);
  const ref = hashNode(top);
  const nodes: TrieNodeEntry[] = [];
  collectNew(top, nodes, path);
  return { ref, nodes };
}
