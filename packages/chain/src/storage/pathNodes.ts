/**
 * Trie nodes as the disk layer keys them (docs/decisions/0211): by owner and path, not by hash.
 * A trie's commit lists (hash, encoding, path); the seal hands them on as PathNodes.
 */
import type { TrieNodeEntry } from '../trie/types.js';
import { trieNodeKey } from './keys.js';

/** A node to keep: its database key (keys.accountNode / keys.storageNode), keccak and encoding. */
export type PathNode = [key: Uint8Array, hash: Uint8Array, enc: Uint8Array];

/** Appends a commit's nodes to `out`; `owner`: keccak(address) for a storage trie. */
export function addPathNodes(out: PathNode[], owner: Uint8Array | undefined, nodes: TrieNodeEntry[]): void {
  for (const [hash, enc, path] of nodes) out.push([trieNodeKey(owner, path), hash, enc]);
}
