import { insert } from './edit.js';
import { keyToNibbles } from './nibbles.js';
import { hashNode } from './nodeCodec.js';
import { BRANCH, HASH, HashNode, LEAF, type TrieNode } from './nodes.js';
import { keccak256 } from '../crypto/keccak.js';
import { MerkleTrie } from './merkleTrie.js';

/** RLP of a non-negative integer: 0x80 for zero, else its big-endian bytes as a string. */
function rlpIndex(i: number): Uint8Array {
  if (i === 0) return Uint8Array.of(0x80);
  if (i < 0x80) return Uint8Array.of(i);
  let length = 0;
  for (let n = i; n > 0; n = Math.floor(n / 256)) length++;
  const out = new Uint8Array(1 + length);
  out[0] = 0x80 + length;
  for (let n = i, at = length; n > 0; n = Math.floor(n / 256)) out[at--] = n % 256;
  return out;
}

/**
 * How many index keys are kept (~100 bytes each): more than a block's transactions at the
 * gas limits a node runs with; an index past it gets a key of its own, as every one did before.
 */
const KEPT_INDEX_KEYS = 16_384;
const indexKeys: Uint8Array[] = [];

/**
 * The nibbles of RLP(i), the key of entry i. Every block's transaction and receipt tries use the
 * same keys, so they are made once and shared: a trie never writes into a key (its nodes' paths
 * are views of it), and making two per transaction was ~1 KB of short-lived allocation and two
 * arrays per transaction alive until the block is sealed (docs/decisions/0531).
 */
function indexKey(i: number): Uint8Array {
  if (i >= KEPT_INDEX_KEYS) return keyToNibbles(rlpIndex(i));
  for (let n = indexKeys.length; n <= i; n++) indexKeys.push(keyToNibbles(rlpIndex(n)));
  return indexKeys[i];
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
    root = insert(root, indexKey(i), 0, values[i]);
  }
  if (root === undefined) return MerkleTrie.empty().root();
  const ref = hashNode(root);
  return ref.length === 32 ? ref : keccak256(ref);
}

/**
 * Replaces each finished part below `node` by a HashNode of its ref (the node must be hashed);
 * returns whether `node` itself is finished. A leaf whose key ends where it hangs is finished:
 * RLP keys are prefix-free and an append-only trie never writes a key twice, so nothing can be
 * inserted at or below it; a branch with all 16 slots finished is finished. What a parent's
 * encoding reads of a child is its ref, so the roots do not change; an insert that reached a
 * HashNode would throw (NeedNode), never run wrong.
 */
function fold(node: TrieNode): boolean {
  if (node.kind === HASH) return true;
  if (node.kind === LEAF) return node.path.length === 0;
  if (node.kind !== BRANCH) {
    fold(node.child); // an extension stays: a later key can still part from its path
    return false;
  }
  const children = node.children;
  let full = node.value === undefined;
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    if (c === undefined) full = false;
    else if (c.kind !== HASH) {
      if (fold(c)) children[i] = new HashNode(c.ref!);
      else full = false;
    }
  }
  return full;
}

/**
 * An ordered trie that grows at the end (a block's transactions or receipts as flashblocks add
 * them): `root()` hashes only the paths changed since the last call, so the roots of a block
 * built in n steps cost about what one orderedTrieRoot of the whole block does. After hashing,
 * the parts no append can change are folded to their hashes (`fold`): the trie keeps ~one
 * hash per 16 entries, not each entry's leaf, path, encoding and hash until the block is sealed
 * (~700 bytes per transaction for the two tries, all copied by the young generation's
 * scavenges and promoted; docs/decisions/0531). Its nodes are its own (it hands none out), so
 * folding in place is safe.
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
      if (v.length) this.node = insert(this.node, indexKey(i), 0, v);
    }
  }

  /** Requires `initKeccak()` to have resolved (as orderedTrieRoot does). */
  root(): Uint8Array {
    if (this.node === undefined) return MerkleTrie.empty().root();
    const ref = hashNode(this.node);
    fold(this.node);
    return ref.length === 32 ? ref : keccak256(ref);
  }
}
