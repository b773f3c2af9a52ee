/**
 * In-memory trie nodes. Nodes are immutable once built (a change rebuilds the path from the root,
 * sharing every untouched subtree), so trie copies are free and a failed operation leaves nothing
 * half-done. The only mutable fields are caches that do not change what a node means:
 * `ref` (its hash, or its encoding when shorter than 32 bytes), `enc` (its encoding until it is
 * committed), `stored` (the node and its subtree are in the node store) and `HashNode.resolved`.
 */

export const LEAF = 0;
export const EXTENSION = 1;
export const BRANCH = 2;
export const HASH = 3;

abstract class NodeCache {
  /**
   * What the parent's encoding holds for this node: the 32-byte keccak of its encoding, or the
   * encoding itself when shorter than 32 bytes (an inline node). Undefined until hashed.
   */
  ref: Uint8Array | undefined = undefined;
  /** The encoding of a hashed node not yet committed (dropped at commit to save memory). */
  enc: Uint8Array | undefined = undefined;
  /** True when this node and its whole subtree are in the node store. */
  stored = false;
}

export class LeafNode extends NodeCache {
  readonly kind = LEAF;
  constructor(
    /** The remaining key nibbles. */
    readonly path: Uint8Array,
    readonly value: Uint8Array,
  ) {
    super();
  }
}

export class ExtensionNode extends NodeCache {
  readonly kind = EXTENSION;
  constructor(
    /** The shared nibbles, at least one. */
    readonly path: Uint8Array,
    /** A branch (possibly still a HashNode). */
    readonly child: TrieNode,
  ) {
    super();
  }
}

export class BranchNode extends NodeCache {
  readonly kind = BRANCH;
  constructor(
    /** 16 slots, undefined where empty. */
    readonly children: (TrieNode | undefined)[],
    /** The value of a key ending at this branch (never with fixed-length keys). */
    readonly value: Uint8Array | undefined,
  ) {
    super();
  }
}

const NO_PATH = new Uint8Array(0);

/** A stored node known only by its hash; loaded on first touch and kept in `resolved`. */
export class HashNode {
  readonly kind = HASH;
  readonly stored = true;
  /**
   * The node's keccak is `src[at .. at + 32)`. A decoded branch's children all point into the
   * branch's one copy of its encoding (nodeCodec.ts): no array of its own per child, most never
   * read (decision 0700). `ref` makes a view when asked; encoding copies from here (`writeRef`).
   */
  private readonly src: Uint8Array;
  private readonly at: number;
  resolved: LoadedNode | undefined = undefined;
  /** The read in progress, shared by everyone who needs this node meanwhile. */
  loading: Promise<void> | undefined = undefined;
  /**
   * Where the node hangs: the nibbles from the root to it (`path`). A path-keyed store
   * (storage/) finds the node by it. It never changes: an edit that keeps a stored subtree keeps
   * its keys, and in a Merkle-Patricia trie a subtree's place follows from its keys (decision
   * 0211). Kept as the parent's path plus the step below it, made into one array only when the
   * node is read: a decoded branch has up to 16 such children, most never read.
   */
  base: Uint8Array;
  /** The branch slot below `base` (-1: none). */
  nibble: number;
  /** The extension's nibbles below `base` (empty: none). */
  ext: Uint8Array;
  /** `hash`: the 32-byte keccak, or (with `at`) a buffer holding it at `at`. */
  constructor(hash: Uint8Array, base: Uint8Array = NO_PATH, nibble = -1, ext: Uint8Array = NO_PATH, at = 0) {
    this.src = hash;
    this.at = at;
    this.base = base;
    this.nibble = nibble;
    this.ext = ext;
  }

  /** The child hash at `src[at .. at + 32)` of a decoded node's own copy of its encoding. */
  static within(src: Uint8Array, at: number): HashNode {
    return new HashNode(src, NO_PATH, -1, NO_PATH, at);
  }

  /** The node's keccak (a view; do not modify it). */
  get ref(): Uint8Array {
    const { src, at } = this;
    return at === 0 && src.length === 32 ? src : src.subarray(at, at + 32);
  }

  /**
   * What a parent's encoding holds for this node: 0xa0 and its keccak, or the encoding itself
   * when it is embedded (shorter than 32 bytes: orderedTrieRoot.ts folds those into HashNodes too).
   */
  get refLength(): number {
    return this.src.length - this.at < 32 ? this.src.length : 33;
  }

  /** Writes `refLength` bytes into `out` at `pos` without making a view; returns the end. */
  writeRef(out: Uint8Array, pos: number): number {
    const { src, at } = this;
    if (src.length - at < 32) {
      out.set(src, pos);
      return pos + src.length;
    }
    out[pos++] = 0xa0;
    for (let j = 0; j < 32; j++) out[pos + j] = src[at + j];
    return pos + 32;
  }

  get path(): Uint8Array {
    if (this.nibble < 0 && this.ext.length === 0) return this.base;
    const out = new Uint8Array(this.base.length + (this.nibble < 0 ? 0 : 1) + this.ext.length);
    out.set(this.base, 0);
    let at = this.base.length;
    if (this.nibble >= 0) out[at++] = this.nibble;
    out.set(this.ext, at);
    return out;
  }
}

export type LoadedNode = LeafNode | ExtensionNode | BranchNode;
export type TrieNode = LoadedNode | HashNode;

/** Thrown inside the synchronous walkers when a stored node must be loaded first. */
export class NeedNode {
  constructor(readonly node: HashNode) {}
}

/** The loaded form of `node`, or throws NeedNode when it is still in the store. */
export function resolve(node: TrieNode): LoadedNode {
  if (node.kind !== HASH) return node;
  if (node.resolved !== undefined) return node.resolved;
  throw new NeedNode(node);
}
