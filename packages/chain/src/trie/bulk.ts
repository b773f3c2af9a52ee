/**
 * Bulk building: many keys into a trie in one pass over them sorted, bottom-up, instead of one
 * insert each. One insert rebuilds its whole path (a branch's 16 slots copied per level), so
 * 10,000 fresh accounts cost ~40,000 short-lived nodes and their arrays; sorted, each node of
 * the result is made once. Measured: docs/perf/2026-11-27-state-files.md.
 *
 *   sortPuts(updates)                 keys as nibbles, sorted, a later entry for a key winning
 *   buildSorted(puts, lo, hi, pos)    the subtree of puts[lo..hi) from nibble pos (empty trie)
 *   mergeSorted(node, puts, ...)      the same into an existing subtree, sharing what no key
 *                                     touches (throws NeedNode like edit.ts when a stored node
 *                                     on a key's path is not loaded: MerkleTrie loads and retries)
 *
 * Keys of one trie either all have the same length (secure tries: 32 bytes) or may be prefixes
 * of each other (a key ending at a branch holds the branch's value): both are handled.
 */
import { joinNibbles, keyToNibbles, matchLength } from './nibbles.js';
import { BranchNode, EXTENSION, ExtensionNode, LEAF, LeafNode, resolve, type TrieNode } from './nodes.js';

/** A put: the key's nibbles and its (non-empty) value. */
export type Put = readonly [nibbles: Uint8Array, value: Uint8Array];

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * The entries' keys as nibbles, sorted, one per key (the last entry for a key wins), split into
 * puts and deletes (an empty or undefined value).
 */
export function sortUpdates(entries: Iterable<readonly [Uint8Array, Uint8Array | undefined]>): {
  puts: Put[];
  deletes: Uint8Array[];
} {
  const all: [Uint8Array, Uint8Array | undefined, number][] = [];
  let i = 0;
  for (const [key, value] of entries) all.push([keyToNibbles(key), value, i++]);
  // By key, then by position: the last of a run of equal keys is the one that counts.
  all.sort((a, b) => compareNibbles(a[0], b[0]) || a[2] - b[2]);
  const puts: Put[] = [];
  const deletes: Uint8Array[] = [];
  for (let j = 0; j < all.length; j++) {
    if (j + 1 < all.length && compareNibbles(all[j][0], all[j + 1][0]) === 0) continue;
    const [nibbles, value] = all[j];
    if (value === undefined || value.length === 0) deletes.push(nibbles);
    else puts.push([nibbles, value]);
  }
  return { puts, deletes };
}

/**
 * The trie of puts[lo..hi) (sorted, distinct, at least one) below nibble `pos`, every key
 * sharing puts[lo]'s first `pos` nibbles. Nothing is hashed (root()/commit() do that).
 */
export function buildSorted(puts: readonly Put[], lo: number, hi: number, pos: number): TrieNode {
  if (hi - lo === 1) return new LeafNode(puts[lo][0].subarray(pos), puts[lo][1]);
  // Sorted: what the first and the last key share, all of them share.
  const first = puts[lo][0];
  const shared = matchLength(first.subarray(pos), puts[hi - 1][0], pos);
  if (shared > 0)
    return new ExtensionNode(first.subarray(pos, pos + shared), branch(puts, lo, hi, pos + shared));
  return branch(puts, lo, hi, pos);
}

/** A branch at nibble `pos` over puts[lo..hi) (at least two keys, which part at `pos`). */
function branch(puts: readonly Put[], lo: number, hi: number, pos: number): BranchNode {
  let value: Uint8Array | undefined;
  // A key ending here sorts first (it is a prefix of the others).
  if (puts[lo][0].length === pos) value = puts[lo++][1];
  const children: (TrieNode | undefined)[] = new Array(16).fill(undefined);
  let i = lo;
  while (i < hi) {
    const nibble = puts[i][0][pos];
    let j = i + 1;
    while (j < hi && puts[j][0][pos] === nibble) j++;
    children[nibble] = buildSorted(puts, i, j, pos + 1);
    i = j;
  }
  return new BranchNode(children, value);
}

/**
 * `node` (the subtree below nibble `pos`, possibly undefined) with puts[lo..hi) set; untouched
 * subtrees are shared, and `node` itself comes back when every put was already there.
 */
export function mergeSorted(
  node: TrieNode | undefined,
  puts: readonly Put[],
  lo: number,
  hi: number,
  pos: number,
): TrieNode | undefined {
  if (lo >= hi) return node;
  if (node === undefined) return buildSorted(puts, lo, hi, pos);
  const n = resolve(node);
  if (n.kind === LEAF) {
    // The leaf is one more key: in the list unless a put replaces it.
    const leafKey = joinNibbles(puts[lo][0].subarray(0, pos), -1, n.path);
    const merged: Put[] = [];
    let placed = false;
    for (let i = lo; i < hi; i++) {
      const c = placed ? -1 : compareNibbles(leafKey, puts[i][0]);
      if (c === 0) placed = true;
      else if (c < 0 && !placed) {
        merged.push([leafKey, n.value]);
        placed = true;
      }
      merged.push(puts[i]);
    }
    if (!placed) merged.push([leafKey, n.value]);
    if (merged.length === 1 && merged[0][1] === n.value) return n;
    return buildSorted(merged, 0, merged.length, pos);
  }
  if (n.kind === EXTENSION) {
    const p = n.path;
    let m = p.length;
    for (let i = lo; i < hi && m > 0; i++) m = Math.min(m, matchLength(p.subarray(0, m), puts[i][0], pos));
    if (m === p.length) {
      const child = mergeSorted(n.child, puts, lo, hi, pos + m);
      return child === n.child ? n : new ExtensionNode(p, child!);
    }
    // Some key leaves the extension at nibble m: a branch there, the rest of the extension
    // under nibble p[m], the keys merged in beside it.
    const rest = p.subarray(m + 1);
    const children: (TrieNode | undefined)[] = new Array(16).fill(undefined);
    children[p[m]] = rest.length > 0 ? new ExtensionNode(rest, n.child) : n.child;
    const b = mergeIntoBranch(new BranchNode(children, undefined), puts, lo, hi, pos + m);
    return m > 0 ? new ExtensionNode(p.subarray(0, m), b) : b;
  }
  return mergeIntoBranch(n, puts, lo, hi, pos);
}

function mergeIntoBranch(
  n: BranchNode,
  puts: readonly Put[],
  lo: number,
  hi: number,
  pos: number,
): BranchNode {
  let value = n.value;
  if (puts[lo][0].length === pos) value = puts[lo++][1];
  let children = n.children;
  let i = lo;
  while (i < hi) {
    const nibble = puts[i][0][pos];
    let j = i + 1;
    while (j < hi && puts[j][0][pos] === nibble) j++;
    const old = children[nibble];
    const child = mergeSorted(old, puts, i, j, pos + 1);
    if (child !== old) {
      if (children === n.children) children = children.slice();
      children[nibble] = child;
    }
    i = j;
  }
  return children === n.children && value === n.value ? n : new BranchNode(children, value);
}
