/**
 * Every leaf of a stored trie, in key order, read node by node: what converts a disk layer that
 * stored all its nodes into one that keeps its leaves (storage/hashedState.ts, decision 0650).
 */
import { EXTENSION, HASH, HashNode, LEAF, type TrieNode } from './nodes.js';
import { joinNibbles, NO_NIBBLES } from './nibbles.js';
import { decodeNode } from './nodeCodec.js';
import { TrieError } from './types.js';

/** Reads the stored node `hash` at `path` (undefined: not there). */
export type ReadNode = (hash: Uint8Array, path: Uint8Array) => Promise<Uint8Array | undefined>;

/** The leaves of the trie at `root` (not the empty root): key nibbles and value. */
export async function* trieLeaves(
  root: Uint8Array,
  read: ReadNode,
): AsyncGenerator<[nibbles: Uint8Array, value: Uint8Array]> {
  yield* walk(new HashNode(root), NO_NIBBLES, read);
}

async function* walk(
  node: TrieNode,
  path: Uint8Array,
  read: ReadNode,
): AsyncGenerator<[Uint8Array, Uint8Array]> {
  let n = node;
  if (n.kind === HASH) {
    const enc = await read(n.ref, path);
    if (!enc)
      throw new TrieError(
        'TRIE_MISSING_NODE',
        `trie node ${Buffer.from(n.ref).toString('hex')} at path ${Buffer.from(path).toString('hex')} is not in the store`,
      );
    n = decodeNode(enc, n.ref);
  }
  if (n.kind === LEAF) {
    yield [joinNibbles(path, -1, n.path), n.value];
    return;
  }
  if (n.kind === EXTENSION) {
    yield* walk(n.child, joinNibbles(path, -1, n.path), read);
    return;
  }
  // A key ending at a branch sorts before the keys below it (never in a secure trie).
  if (n.value) yield [path, n.value];
  for (let i = 0; i < 16; i++) {
    const c = n.children[i];
    if (c !== undefined) yield* walk(c, joinNibbles(path, i, NO_NIBBLES), read);
  }
}
