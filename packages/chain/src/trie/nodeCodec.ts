/**
 * RLP encoding and decoding of trie nodes, each encoding written directly into its exact-size
 * slice of a shared slab (no intermediate arrays), and the hashing rule: a node whose encoding
 * is 32 bytes or longer is referenced by its keccak256, a shorter one is embedded in its parent.
 *
 *   leaf       rlp([hexPrefix(path, leaf), value])
 *   extension  rlp([hexPrefix(path), childRef])
 *   branch     rlp([ref0, ..., ref15, value])      empty slot / no value: 0x80
 */
import { keccak256 } from '../crypto/keccak.js';
import {
  BRANCH,
  BranchNode,
  EXTENSION,
  ExtensionNode,
  HASH,
  HashNode,
  LEAF,
  LeafNode,
  type LoadedNode,
  type TrieNode,
} from './nodes.js';
import { TrieError } from './types.js';

/** Bytes of an RLP string item holding `len` bytes whose first byte is `first`. */
function stringLength(len: number, first: number): number {
  if (len === 1 && first < 0x80) return 1;
  if (len < 56) return 1 + len;
  return 1 + byteLength(len) + len;
}

function byteLength(n: number): number {
  let k = 0;
  while (n > 0) {
    k++;
    n = Math.floor(n / 256);
  }
  return k;
}

function listHeaderLength(payload: number): number {
  return payload < 56 ? 1 : 1 + byteLength(payload);
}

function writeLength(out: Uint8Array, pos: number, len: number, short: number, long: number): number {
  if (len < 56) {
    out[pos] = short + len;
    return pos + 1;
  }
  const k = byteLength(len);
  out[pos] = long + k;
  for (let i = k; i > 0; i--) {
    out[pos + i] = len & 0xff;
    len = Math.floor(len / 256);
  }
  return pos + 1 + k;
}

function writeString(out: Uint8Array, pos: number, data: Uint8Array): number {
  if (data.length === 1 && data[0] < 0x80) {
    out[pos] = data[0];
    return pos + 1;
  }
  pos = writeLength(out, pos, data.length, 0x80, 0xb7);
  return copyInto(out, pos, data);
}

/** out[pos..] = data; a loop for a few bytes, TypedArray.set beyond (faster from ~8 bytes). */
function copyInto(out: Uint8Array, pos: number, data: Uint8Array): number {
  const n = data.length;
  if (n > 8) {
    out.set(data, pos);
    return pos + n;
  }
  for (let i = 0; i < n; i++) out[pos + i] = data[i];
  return pos + n;
}

/** Bytes of the hex-prefix (compact) encoding of a nibble path, as an RLP item. */
function pathItemLength(path: Uint8Array): number {
  const n = (path.length >> 1) + 1;
  return n === 1 ? 1 : 1 + n; // a single hex-prefix byte is always < 0x80
}

function writePath(out: Uint8Array, pos: number, path: Uint8Array, leaf: boolean): number {
  const n = (path.length >> 1) + 1;
  if (n > 1) out[pos++] = 0x80 + n;
  const odd = path.length & 1;
  const flag = (leaf ? 2 : 0) + odd;
  let i = 0;
  out[pos++] = odd ? (flag << 4) | path[i++] : flag << 4;
  for (; i < path.length; i += 2) out[pos++] = (path[i] << 4) | path[i + 1];
  return pos;
}

/** Bytes `ref` takes inside a parent: 0xa0 + hash, or the inline encoding itself. */
function refLength(ref: Uint8Array): number {
  return ref.length === 32 ? 33 : ref.length;
}

function writeRef(out: Uint8Array, pos: number, ref: Uint8Array): number {
  if (ref.length === 32) out[pos++] = 0xa0;
  return copyInto(out, pos, ref);
}

/**
 * Node encodings are carved out of shared 64 KiB slabs: one allocation per slab instead of an
 * off-heap ArrayBuffer per node (the dominant cost of encoding). Encodings are views; inline
 * refs are copied out so that a few long-lived small nodes do not pin a slab.
 */
const SLAB_SIZE = 1 << 16;
let slab = new Uint8Array(SLAB_SIZE);
let slabPos = 0;

function allocate(n: number): Uint8Array {
  if (n > SLAB_SIZE >> 2) return new Uint8Array(n);
  if (slabPos + n > SLAB_SIZE) {
    slab = new Uint8Array(SLAB_SIZE);
    slabPos = 0;
  }
  const out = slab.subarray(slabPos, slabPos + n);
  slabPos += n;
  return out;
}

/** The RLP encoding of a loaded node; children must already have their `ref`. */
export function encodeNode(node: LoadedNode): Uint8Array {
  let payload: number;
  if (node.kind === LEAF) {
    const v = node.value;
    payload = pathItemLength(node.path) + stringLength(v.length, v[0]);
    const out = allocate(listHeaderLength(payload) + payload);
    let pos = writeLength(out, 0, payload, 0xc0, 0xf7);
    pos = writePath(out, pos, node.path, true);
    writeString(out, pos, v);
    return out;
  }
  if (node.kind === EXTENSION) {
    const ref = node.child.ref!;
    payload = pathItemLength(node.path) + refLength(ref);
    const out = allocate(listHeaderLength(payload) + payload);
    let pos = writeLength(out, 0, payload, 0xc0, 0xf7);
    pos = writePath(out, pos, node.path, false);
    writeRef(out, pos, ref);
    return out;
  }
  const children = node.children;
  const v = node.value;
  payload = v === undefined ? 1 : stringLength(v.length, v[0]);
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    payload += c === undefined ? 1 : c.kind === HASH ? c.refLength : refLength(c.ref!);
  }
  const out = allocate(listHeaderLength(payload) + payload);
  let pos = writeLength(out, 0, payload, 0xc0, 0xf7);
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    if (c === undefined) out[pos++] = 0x80;
    // A stored child: its hash is copied from where it is kept, without a view of it.
    else if (c.kind === HASH) pos = c.writeRef(out, pos);
    else pos = writeRef(out, pos, c.ref!);
  }
  if (v === undefined) out[pos] = 0x80;
  else writeString(out, pos, v);
  return out;
}

/**
 * Gives `node` and every descendant without one a `ref`, hashing each such node once; returns
 * the node's ref. Nodes that already have a ref (clean, or hashed by an earlier root()) are
 * not visited again.
 */
export function hashNode(node: TrieNode): Uint8Array {
  if (node.ref !== undefined) return node.ref;
  if (node.kind === EXTENSION) hashNode(node.child);
  else if (node.kind === BRANCH) {
    const children = node.children;
    for (let i = 0; i < 16; i++) {
      const c = children[i];
      if (c !== undefined && c.kind !== HASH && c.ref === undefined) hashNode(c);
    }
  }
  const enc = encodeNode(node as LoadedNode);
  if (enc.length >= 32) {
    (node as LoadedNode).enc = enc;
    (node as LoadedNode).ref = keccak256(enc);
  } else {
    (node as LoadedNode).ref = enc.slice();
  }
  return node.ref!;
}

// ---- decoding ----------------------------------------------------------------------------

/** Position of the payload and end of the RLP item at `pos` (module scratch, no allocation). */
let itemStart = 0;
let itemEnd = 0;
let itemIsList = false;

function readItem(buf: Uint8Array, pos: number, limit: number): void {
  if (pos >= limit) throw bad('truncated node');
  const b = buf[pos];
  let len: number;
  if (b < 0x80) {
    itemStart = pos;
    itemEnd = pos + 1;
    itemIsList = false;
    return;
  }
  if (b < 0xb8) {
    itemIsList = false;
    itemStart = pos + 1;
    len = b - 0x80;
  } else if (b < 0xc0) {
    itemIsList = false;
    const k = b - 0xb7;
    len = readLength(buf, pos + 1, k);
    itemStart = pos + 1 + k;
  } else if (b < 0xf8) {
    itemIsList = true;
    itemStart = pos + 1;
    len = b - 0xc0;
  } else {
    itemIsList = true;
    const k = b - 0xf7;
    len = readLength(buf, pos + 1, k);
    itemStart = pos + 1 + k;
  }
  itemEnd = itemStart + len;
  if (itemEnd > limit) throw bad('truncated node');
}

function readLength(buf: Uint8Array, pos: number, k: number): number {
  let len = 0;
  for (let i = 0; i < k; i++) len = len * 256 + buf[pos + i];
  return len;
}

function bad(message: string): TrieError {
  return new TrieError('TRIE_BAD_NODE', `malformed trie node: ${message}`);
}

/** Decodes a hex-prefix path into nibbles; returns [nibbles, isLeaf]. */
function decodePath(bytes: Uint8Array): [Uint8Array, boolean] {
  if (bytes.length === 0) throw bad('empty path');
  const flag = bytes[0] >> 4;
  if (flag > 3) throw bad('bad hex-prefix flag');
  const odd = flag & 1;
  const out = new Uint8Array((bytes.length - 1) * 2 + odd);
  let j = 0;
  if (odd) out[j++] = bytes[0] & 0x0f;
  for (let i = 1; i < bytes.length; i++) {
    out[j++] = bytes[i] >> 4;
    out[j++] = bytes[i] & 0x0f;
  }
  return [out, flag >= 2];
}

/**
 * Decodes a node read from the store (or embedded in one). The node is marked stored and keeps
 * its ref: `hash` for a stored node, its own bytes for an embedded one. Children referenced by
 * hash become HashNodes (loaded on demand); embedded children are decoded now.
 */
export function decodeNode(enc: Uint8Array, hash: Uint8Array | undefined): LoadedNode {
  readItem(enc, 0, enc.length);
  if (!itemIsList) throw bad('not a list');
  const start = itemStart;
  const end = itemEnd;
  let count = 0;
  for (let pos = start; pos < end; pos = itemEnd, count++) readItem(enc, pos, end);
  let node: LoadedNode;
  if (count === 2) {
    readItem(enc, start, end);
    if (itemIsList) throw bad('path is a list');
    const [path, leaf] = decodePath(enc.subarray(itemStart, itemEnd));
    readItem(enc, itemEnd, end);
    if (leaf) {
      if (itemIsList) throw bad('leaf value is a list');
      node = new LeafNode(path, enc.slice(itemStart, itemEnd));
    } else {
      if (path.length === 0) throw bad('empty extension');
      const child = decodeChild(enc, itemStart, itemEnd, itemIsList);
      if (child === undefined) throw bad('extension without a child');
      node = new ExtensionNode(path, child);
    }
  } else if (count === 17) {
    // The children keep where their hashes are in one copy of the encoding (`enc` may be a view
    // into a large shared buffer that must not be pinned): one allocation, not sixteen 32-byte
    // arrays the garbage collector copies while the node is young (decision 0700); and the
    // branch's re-encoding reads its stored children's hashes from one place.
    const own = enc.slice();
    const children: (TrieNode | undefined)[] = new Array(16);
    let pos = start;
    for (let i = 0; i < 16; i++) {
      readItem(own, pos, end);
      pos = itemEnd; // decodeChild may recurse and reuse the scratch
      children[i] = decodeChild(own, itemStart, itemEnd, itemIsList, true);
    }
    readItem(enc, pos, end);
    if (itemIsList) throw bad('branch value is a list');
    node = new BranchNode(children, itemEnd > itemStart ? enc.slice(itemStart, itemEnd) : undefined);
  } else {
    throw bad(`list of ${count} items`);
  }
  node.ref = hash ?? enc;
  node.stored = true;
  return node;
}

/** `owned`: `enc` is the node's own copy, so a stored child may keep its hash's place in it. */
function decodeChild(
  enc: Uint8Array,
  start: number,
  end: number,
  isList: boolean,
  owned = false,
): TrieNode | undefined {
  if (isList) {
    // an embedded node: its bytes include the list header just before `start`
    const header = listHeaderLength(end - start);
    return decodeNode(enc.slice(start - header, end), undefined);
  }
  if (end === start) return undefined;
  if (end - start !== 32) throw bad('child reference is not 32 bytes');
  return owned ? HashNode.within(enc, start) : new HashNode(enc.slice(start, end));
}
