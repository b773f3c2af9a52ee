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

/**
 * An ordered trie that grows at the end (a block's transactions or receipts as flashblocks add
 * them): `root()` hashes only the paths changed since the last call, so the roots of a block
 * built in n steps cost about what one orderedTrieRoot of the whole block does.
 */
export class AppendOnlyOrderedTrie {
  private node: TrieNode | undefined;
  private count = 0;

  get size(): number {
    return this.count;
  }

  append(values: readonly Uint8Array[]): void {
    for (const v of values) {
      const i = this.count++;
      if (v.length) this.node = insert(this.node, keyToNibbles(rlpIndex(i)), 0, v);
    }
  }

  /** Requires `initKeccak()` to have resolved (as orderedTrieRoot does). */
  root(): Uint8Array {
    if (this.node === undefined) return MerkleTrie.empty().root();
    const ref = hashNode(this.node);
    return ref.length === 32 ? ref : keccak256(ref);
  }
}
