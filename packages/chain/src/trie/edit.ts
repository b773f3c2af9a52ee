/**
 * The trie's path operations on immutable nodes: each returns the new subtree, sharing every
 * untouched node, or the same node when nothing changed. They are synchronous and throw
 * NeedNode when a stored node must be loaded first; MerkleTrie loads it and retries.
 */
import { joinNibbles, matchLength, NO_NIBBLES } from './nibbles.js';
import {
  BranchNode,
  EXTENSION,
  ExtensionNode,
  HASH,
  LEAF,
  LeafNode,
  resolve,
  type TrieNode,
} from './nodes.js';

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The value at `key` (nibbles) below `node`, or undefined. */
export function lookup(node: TrieNode | undefined, key: Uint8Array): Uint8Array | undefined {
  let pos = 0;
  while (node !== undefined) {
    const n = resolve(node);
    if (n.kind === LEAF) {
      const p = n.path;
      return p.length === key.length - pos && matchLength(p, key, pos) === p.length ? n.value : undefined;
    }
    if (n.kind === EXTENSION) {
      const p = n.path;
      if (matchLength(p, key, pos) < p.length) return undefined;
      pos += p.length;
      node = n.child;
    } else {
      if (pos === key.length) return n.value;
      node = n.children[key[pos++]];
    }
  }
  return undefined;
}

/** A walk down one key's path, resumable after a stored node is loaded. */
export interface PathWalk {
  key: Uint8Array;
  node: TrieNode | undefined;
  pos: number;
}

/**
 * Advances `w` down its key's path; stops with `w.node` on the first node still in the store
 * (returns true) or at the end of the path (returns false).
 */
export function walkToMissing(w: PathWalk): boolean {
  const key = w.key;
  let node = w.node;
  let pos = w.pos;
  while (node !== undefined) {
    if (node.kind === HASH) {
      if (node.resolved === undefined) {
        w.node = node;
        w.pos = pos;
        return true;
      }
      node = node.resolved;
    }
    if (node.kind === LEAF) break;
    if (node.kind === EXTENSION) {
      const p = node.path;
      if (matchLength(p, key, pos) < p.length) break;
      pos += p.length;
      node = node.child;
    } else {
      if (pos === key.length) break;
      node = node.children[key[pos++]];
    }
  }
  w.node = undefined;
  return false;
}

/** A new branch holding `a` at nibble `ia` and a leaf for the rest of `key` (or its value). */
function fork(
  prefix: Uint8Array,
  ia: number,
  a: TrieNode | undefined,
  aValue: Uint8Array | undefined,
  key: Uint8Array,
  at: number,
  value: Uint8Array,
): TrieNode {
  const children: (TrieNode | undefined)[] = new Array(16).fill(undefined);
  let branchValue = aValue;
  if (a !== undefined) children[ia] = a;
  if (at === key.length) branchValue = value;
  else children[key[at]] = new LeafNode(key.subarray(at + 1), value);
  const branch = new BranchNode(children, branchValue);
  return prefix.length > 0 ? new ExtensionNode(prefix, branch) : branch;
}

/** `node` with `key` (from nibble `pos`) set to the non-empty `value`. */
export function insert(
  node: TrieNode | undefined,
  key: Uint8Array,
  pos: number,
  value: Uint8Array,
): TrieNode {
  if (node === undefined) return new LeafNode(key.subarray(pos), value);
  const n = resolve(node);
  if (n.kind === LEAF) {
    const p = n.path;
    const m = matchLength(p, key, pos);
    if (m === p.length && pos + m === key.length) {
      return sameBytes(n.value, value) ? n : new LeafNode(p, value);
    }
    // the two keys part at nibble m: a branch, under an extension for the shared part
    if (m === p.length) return fork(p, -1, undefined, n.value, key, pos + m, value);
    return fork(
      p.subarray(0, m),
      p[m],
      new LeafNode(p.subarray(m + 1), n.value),
      undefined,
      key,
      pos + m,
      value,
    );
  }
  if (n.kind === EXTENSION) {
    const p = n.path;
    const m = matchLength(p, key, pos);
    if (m === p.length) {
      const child = insert(n.child, key, pos + m, value);
      return child === n.child ? n : new ExtensionNode(p, child);
    }
    const rest = p.subarray(m + 1);
    const a = rest.length > 0 ? new ExtensionNode(rest, n.child) : n.child;
    return fork(p.subarray(0, m), p[m], a, undefined, key, pos + m, value);
  }
  if (pos === key.length) {
    return n.value !== undefined && sameBytes(n.value, value) ? n : new BranchNode(n.children, value);
  }
  const i = key[pos];
  const old = n.children[i];
  const child = insert(old, key, pos + 1, value);
  if (child === old) return n;
  const children = n.children.slice();
  children[i] = child;
  return new BranchNode(children, n.value);
}

/** `node` without `key` (from nibble `pos`); the same node when the key is absent. */
export function remove(node: TrieNode | undefined, key: Uint8Array, pos: number): TrieNode | undefined {
  if (node === undefined) return undefined;
  const n = resolve(node);
  if (n.kind === LEAF) {
    const p = n.path;
    return p.length === key.length - pos && matchLength(p, key, pos) === p.length ? undefined : n;
  }
  if (n.kind === EXTENSION) {
    const p = n.path;
    if (matchLength(p, key, pos) < p.length) return n;
    const child = remove(n.child, key, pos + p.length);
    if (child === n.child) return n;
    return child === undefined ? undefined : prepend(p, -1, child);
  }
  let children = n.children;
  let value = n.value;
  if (pos === key.length) {
    if (value === undefined) return n;
    value = undefined;
  } else {
    const i = key[pos];
    const old = children[i];
    if (old === undefined) return n;
    const child = remove(old, key, pos + 1);
    if (child === old) return n;
    children = children.slice();
    children[i] = child;
  }
  // a branch needs two entries; with one left it collapses into its only child or a leaf
  let only = -1;
  let count = value === undefined ? 0 : 1;
  for (let j = 0; j < 16; j++) {
    if (children[j] !== undefined) {
      only = j;
      count++;
    }
  }
  if (count >= 2) return new BranchNode(children, value);
  if (count === 0) return undefined;
  if (only < 0) return new LeafNode(NO_NIBBLES, value!);
  return prepend(NO_NIBBLES, only, children[only]!);
}

/** `child` under the extra path `prefix ++ [nibble]`, merging paths into a leaf or extension. */
function prepend(prefix: Uint8Array, nibble: number, child: TrieNode): TrieNode {
  const c = resolve(child);
  if (c.kind === LEAF) return new LeafNode(joinNibbles(prefix, nibble, c.path), c.value);
  if (c.kind === EXTENSION) return new ExtensionNode(joinNibbles(prefix, nibble, c.path), c.child);
  return new ExtensionNode(joinNibbles(prefix, nibble, NO_NIBBLES), c);
}
