import { insert } from './edit.js';
import { keyToNibbles } from './nibbles.js';
import { hashNode } from './nodeCodec.js';
import type { TrieNode } from './nodes.js';
import { keccak256 } from '../crypto/keccak.js';
import { MerkleTrie } from './merkleTrie.js';

/** RLP of a non-negative integer: 0x80 for zero, else its big-endian bytes as a string. */
function rlpIndex(i: number): Uint8Array {
  if (i === 0) return Uint8Array.of(0x80);
  if (i < 0x80) return Uint8Array.of(i);
  const bytes: number[] = [];
  for (let n = i; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Uint8Array.from([0x80 + bytes.length, ...bytes]);
}

/**
 * The root of the trie mapping RLP(index) to `values[index]`: transactionsRoot (values are the
 * transactions' network encodings), receiptsRoot (receipt encodings), withdrawalsRoot.
 * Synchronous and in memory; requires `initKeccak()` to have resolved.
 */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  let root: TrieNode | undefined;
  for (let i = 0; i < values.length; i++) {
    if (values[i].length === 0) continue;
    root = insert(root, keyToNibbles(rlpIndex(i)), 0, values[i]);
  }
  if (root === undefined) return MerkleTrie.empty().root();
  const ref = hashNode(root);
  return ref.length === 32 ? ref : keccak256(ref);
}
