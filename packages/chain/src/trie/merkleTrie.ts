/**
 * MerkleTrie: the state, storage, transaction and receipt tries of the chain node.
 *
 *   put/del/update ──> edit.ts rebuilds the touched paths (immutable nodes, nothing hashed)
 *         │  a stored node on the path? ──> load it from the TrieNodeStore, cache it, retry
 *   root()   ──> nodeCodec.hashNode: encode + keccak each new node once, bottom-up
 *   commit() ──> root() + the new nodes (hash, encoding) for the caller to persist
 *
 * Consumers: builder/ (one batch per seal), storage/ (persists commit().nodes), rpc/ (proofs).
 *
 * One file (over 400 lines): loading, batches, roots, commits, proofs and eviction all keep the
 * same node cache and its rule (a stored node is loaded once, then kept until evicted).
 */
import { initKeccak, isKeccakReady, keccak256 } from '../crypto/keccak.js';
import { mergeSorted, sortUpdates } from './bulk.js';
import { insert, lookup, type PathWalk, remove, walkToMissing } from './edit.js';
import { joinNibbles, keyToNibbles, NO_NIBBLES } from './nibbles.js';
import { decodeNode, encodeNode, hashNode } from './nodeCodec.js';
import {
  BRANCH,
  BranchNode,
  EXTENSION,
  ExtensionNode,
  HASH,
  HashNode,
  LEAF,
  type LoadedNode,
  NeedNode,
  resolve,
  type TrieNode,
} from './nodes.js';
import {
  type CommitResult,
  TrieError,
  type TrieNodeEntry,
  type TrieNodeStore,
  type TrieUpdate,
} from './types.js';

const EMPTY_ROOT = Uint8Array.from(
  Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex'),
);

/** keccak256(rlp('')): the root of the trie with no keys (a copy; the trie never reads it). */
export const EMPTY_TRIE_ROOT: Uint8Array = EMPTY_ROOT.slice();

/** Batches of at least this many entries are sorted and merged in one pass (bulk.ts). */
const BULK_FROM = 64;

function isEmptyRoot(root: Uint8Array): boolean {
  if (root.length !== 32) return false;
  for (let i = 0; i < 32; i++) if (root[i] !== EMPTY_ROOT[i]) return false;
  return true;
}

export class MerkleTrie {
  private rootNode: TrieNode | undefined;

  private constructor(
    private readonly store: TrieNodeStore | undefined,
    rootNode: TrieNode | undefined,
    /** Passed to the store with every read: which trie of a path-keyed store (types.ts). */
    private readonly owner?: Uint8Array,
  ) {
    this.rootNode = rootNode;
  }

  /** A trie with no keys. Without a store it lives in memory only (commit() still lists nodes). */
  static empty(store?: TrieNodeStore): MerkleTrie {
    return new MerkleTrie(store, undefined);
  }

  /**
   * The trie whose root is `root`, reading nodes from `store` as they are touched.
   * Nothing is read now: a missing root node surfaces as TRIE_MISSING_NODE on first access.
   * `owner`: handed to the store with each read (a storage trie's account key, types.ts).
   */
  static at(root: Uint8Array, store: TrieNodeStore, owner?: Uint8Array): MerkleTrie {
    if (root.length !== 32)
      throw new TrieError('TRIE_BAD_NODE', `a trie root is 32 bytes, got ${root.length}`);
    return new MerkleTrie(store, isEmptyRoot(root) ? undefined : new HashNode(Uint8Array.from(root)), owner);
  }

  /**
   * An independent trie with the same content, sharing all nodes (O(1)): changes to either do
   * not show in the other. Both read from the same store.
   */
  copy(): MerkleTrie {
    return new MerkleTrie(this.store, this.rootNode, this.owner);
  }

  /** The value stored at `key`, or undefined. The array is the trie's own: do not modify it. */
  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    const nibbles = keyToNibbles(key);
    for (;;) {
      try {
        return lookup(this.rootNode, nibbles);
      } catch (e) {
        await this.loadOrThrow(e, nibbles);
      }
    }
  }

  /** Sets `key` to `value`; an empty value deletes the key. `value` is kept, not copied. */
  async put(key: Uint8Array, value: Uint8Array): Promise<void> {
    if (!isKeccakReady()) await initKeccak();
    await this.apply(keyToNibbles(key), value);
  }

  /** Deletes `key` (no-op when absent). */
  async del(key: Uint8Array): Promise<void> {
    if (!isKeccakReady()) await initKeccak();
    await this.apply(keyToNibbles(key), undefined);
  }

  /**
   * Applies the changes in order (a later entry for the same key wins); an empty or undefined
   * value deletes. Atomic: on an error (TRIE_MISSING_NODE) nothing is applied, and concurrent
   * calls see the batch whole or not at all. The stored nodes the batch needs are read
   * concurrently, in rounds (one per level, plus one when deletions must merge a stored sibling).
   */
  async update(entries: Iterable<TrieUpdate>): Promise<void> {
    if (!isKeccakReady()) await initKeccak();
    const all = Array.isArray(entries) ? (entries as TrieUpdate[]) : [...entries];
    if (all.length >= BULK_FROM) return this.updateSorted(all);
    const list: [Uint8Array, Uint8Array | undefined][] = [];
    for (const [key, value] of all) list.push([keyToNibbles(key), value]);
    if (this.store !== undefined) await this.prefetch(list);
    for (;;) {
      // nodes are immutable, so a pass that meets a missing node is simply discarded
      let root = this.rootNode;
      const missing: Missing = new Map();
      for (const [nibbles, value] of list) {
        try {
          root = applyTo(root, nibbles, value);
        } catch (e) {
          if (!(e instanceof NeedNode)) throw e;
          waitsOn(missing, e.node, nibbles);
        }
      }
      if (missing.size === 0) {
        this.rootNode = root;
        return;
      }
      await this.loadAll(missing);
    }
  }

  /**
   * `update` of a large batch: the puts merged in one sorted pass (bulk.ts), then the deletes
   * one by one (keys are distinct by then, so the order between them does not matter).
   */
  private async updateSorted(entries: TrieUpdate[]): Promise<void> {
    const { puts, deletes } = sortUpdates(entries);
    if (this.store !== undefined) {
      const list: [Uint8Array, undefined][] = [];
      for (const [nibbles] of puts) list.push([nibbles, undefined]);
      for (const nibbles of deletes) list.push([nibbles, undefined]);
      await this.prefetch(list);
    }
    for (;;) {
      try {
        let root = mergeSorted(this.rootNode, puts, 0, puts.length, 0);
        for (const nibbles of deletes) root = remove(root, nibbles, 0);
        this.rootNode = root;
        return;
      } catch (e) {
        // a deletion that merges a stored sibling: load it and start over (nodes are immutable)
        await this.loadOrThrow(e);
      }
    }
  }

  /**
   * Reads the stored nodes on the paths of `keys` into memory and changes nothing: a later
   * update of those keys needs no reads. Nodes are shared, so copies of this trie gain them too.
   */
  async warm(keys: Iterable<Uint8Array>): Promise<void> {
    if (this.store === undefined) return;
    const list: [Uint8Array, undefined][] = [];
    for (const key of keys) list.push([keyToNibbles(key), undefined]);
    await this.prefetch(list);
  }

  /**
   * The root hash. Hashes each node changed since the last root() once; cheap when nothing
   * changed.
   */
  root(): Uint8Array {
    const r = this.rootNode;
    if (r === undefined) return EMPTY_ROOT.slice();
    if (r.kind === HASH) return r.ref.slice();
    const ref = hashNode(r);
    return ref.length === 32 ? ref.slice() : keccak256(ref);
  }

  /**
   * The root and the nodes created since the last commit (hash, encoding), which the caller
   * persists in its TrieNodeStore; they are then considered stored. The root node is always
   * listed when new, even if shorter than 32 bytes, so that `MerkleTrie.at(root)` can open it.
   */
  commit(): CommitResult {
    const root = this.root();
    const nodes: TrieNodeEntry[] = [];
    const r = this.rootNode;
    if (r !== undefined && !r.stored) {
      collectNew(r, nodes, NO_NIBBLES);
      if (r.ref!.length < 32) nodes.push([root, r.ref!, NO_NIBBLES]);
    }
    return { root, nodes };
  }

  /**
   * Forgets the loaded nodes deeper than `keepDepth` (the root is depth 0) that are in the
   * store; they are read again when next touched. Bounds the memory of a long-lived trie:
   * `store.putAll(trie.commit().nodes); trie.evict(3)`. Uncommitted nodes are kept.
   */
  evict(keepDepth = 3): void {
    if (this.rootNode !== undefined) this.rootNode = evictBelow(this.rootNode, keepDepth, NO_NIBBLES);
  }

  /**
   * The proof for `key` as eth_getProof returns it: the RLP encoding of each node on the path
   * from the root to the key (or to where the path ends), embedded nodes included — the list
   * @ethereumjs/mpt's createMerkleProof gives. Empty for the empty trie.
   */
  async createProof(key: Uint8Array): Promise<Uint8Array[]> {
    if (!isKeccakReady()) await initKeccak();
    const nibbles = keyToNibbles(key);
    for (;;) {
      try {
        return this.proofPath(nibbles);
      } catch (e) {
        await this.loadOrThrow(e, nibbles);
      }
    }
  }

  private proofPath(key: Uint8Array): Uint8Array[] {
    const proof: Uint8Array[] = [];
    let node = this.rootNode;
    if (node === undefined) return proof;
    if (node.kind !== HASH) hashNode(node);
    let pos = 0;
    while (node !== undefined) {
      const n: LoadedNode = resolve(node);
      proof.push(encodingOf(n));
      if (n.kind === LEAF) break;
      if (n.kind === EXTENSION) {
        const p = n.path;
        let m = 0;
        while (m < p.length && pos + m < key.length && p[m] === key[pos + m]) m++;
        if (m < p.length) break;
        pos += p.length;
        node = n.child;
      } else {
        if (pos === key.length) break;
        node = n.children[key[pos++]];
      }
    }
    return proof;
  }

  private async apply(nibbles: Uint8Array, value: Uint8Array | undefined): Promise<void> {
    for (;;) {
      try {
        this.applySync(nibbles, value);
        return;
      } catch (e) {
        await this.loadOrThrow(e, nibbles);
      }
    }
  }

  private applySync(nibbles: Uint8Array, value: Uint8Array | undefined): void {
    this.rootNode = applyTo(this.rootNode, nibbles, value);
  }

  /**
   * Loads the stored nodes on the paths of `list`, each round reading all the nodes found
   * missing at once (concurrent reads from the store), each path resuming where it stopped.
   */
  private async prefetch(list: [Uint8Array, Uint8Array | undefined][]): Promise<void> {
    let walks: PathWalk[] = [];
    for (const [key] of list) walks.push({ key, node: this.rootNode, pos: 0 });
    for (;;) {
      const missing: Missing = new Map();
      const next: PathWalk[] = [];
      for (const w of walks) {
        if (walkToMissing(w)) {
          waitsOn(missing, w.node as HashNode, w.key);
          next.push(w);
        }
      }
      if (missing.size === 0) return;
      await this.loadAll(missing);
      walks = next;
    }
  }

  /**
   * `key`: the nibbles of the key whose walk needs the node, for the store to keep what lies
   * along it (a deletion's merged sibling is off the key's path: then only that node is kept).
   */
  private async loadOrThrow(e: unknown, key?: Uint8Array): Promise<void> {
    if (!(e instanceof NeedNode)) throw e;
    await this.load(e.node, key && [key]);
  }

  private load(node: HashNode, toward?: Uint8Array[]): Promise<void> {
    if (node.resolved !== undefined) return Promise.resolve();
    node.loading ??= this.read(node, toward).finally(() => {
      node.loading = undefined;
    });
    return node.loading;
  }

  private async read(node: HashNode, toward?: Uint8Array[]): Promise<void> {
    install(
      node,
      this.store === undefined ? undefined : await this.store.get(node.ref, node.path, this.owner, toward),
    );
  }

  /** Loads `nodes`: with one store.getMany call when the store has it, else one get each. */
  private async loadAll(nodes: Missing): Promise<void> {
    const store = this.store;
    if (store?.getMany === undefined) {
      await Promise.all(Array.from(nodes, ([n, toward]) => this.load(n, toward)));
      return;
    }
    const todo: HashNode[] = [];
    const toward: Uint8Array[][] = [];
    const waits: Promise<void>[] = [];
    for (const [n, keys] of nodes) {
      if (n.resolved !== undefined) continue;
      if (n.loading !== undefined) waits.push(n.loading);
      else {
        todo.push(n);
        toward.push(keys);
      }
    }
    if (todo.length > 0) {
      const batch = store
        .getMany(
          todo.map((n) => n.ref),
          todo.map((n) => n.path),
          this.owner,
          toward,
        )
        .then((encs) => {
          for (let i = 0; i < todo.length; i++) install(todo[i], encs[i]);
        })
        .finally(() => {
          for (const n of todo) n.loading = undefined;
        });
      for (const n of todo) n.loading = batch;
      waits.push(batch);
    }
    await Promise.all(waits);
  }
}

/** `path`: where `node` hangs (nibbles from the root), for the HashNodes that replace nodes. */
function evictBelow(node: TrieNode, depth: number, path: Uint8Array): TrieNode {
  if (node.kind === HASH) {
    const r = node.resolved;
    if (r === undefined) return node;
    if (depth <= 0) return new HashNode(node.ref, node.path);
    const kept = evictBelow(r, depth, path);
    return kept === r ? node : kept;
  }
  if (depth <= 0 && node.stored && node.ref!.length === 32) return new HashNode(node.ref!, path);
  if (node.kind === LEAF) return node;
  if (node.kind === EXTENSION) {
    const child = evictBelow(node.child, depth - 1, joinNibbles(path, -1, node.path));
    return child === node.child ? node : withCaches(new ExtensionNode(node.path, child), node);
  }
  let children = node.children;
  for (let i = 0; i < 16; i++) {
    const c = children[i];
    if (c === undefined) continue;
    const kept = evictBelow(c, depth - 1, joinNibbles(path, i, NO_NIBBLES));
    if (kept !== c) {
      if (children === node.children) children = children.slice();
      children[i] = kept;
    }
  }
  return children === node.children ? node : withCaches(new BranchNode(children, node.value), node);
}

/** `fresh` (same content as `old`, children swapped for equal ones) with old's caches. */
function withCaches<T extends LoadedNode>(fresh: T, old: LoadedNode): T {
  fresh.ref = old.ref;
  fresh.enc = old.enc;
  fresh.stored = old.stored;
  return fresh;
}

function applyTo(root: TrieNode | undefined, nibbles: Uint8Array, value: Uint8Array | undefined) {
  return value === undefined || value.length === 0
    ? remove(root, nibbles, 0)
    : insert(root, nibbles, 0, value);
}

/**
 * Decodes a node read from the store into its HashNode (TRIE_MISSING_NODE if not found), and
 * tells the children it references by hash where they hang. (An embedded child is under 32
 * bytes, too short to reference anything by hash: one level is all there is to do.)
 */
function install(node: HashNode, enc: Uint8Array | undefined): void {
  if (enc === undefined) {
    throw new TrieError(
      'TRIE_MISSING_NODE',
      `trie node ${Buffer.from(node.ref).toString('hex')} is not in the store`,
    );
  }
  if (node.resolved !== undefined) return;
  const n = decodeNode(enc, enc.length >= 32 ? node.ref : undefined);
  if (n.kind === EXTENSION) {
    if (n.child.kind === HASH) {
      n.child.base = node.path;
      n.child.ext = n.path;
    }
  } else if (n.kind === BRANCH) {
    const path = node.path; // one array for the 16 children
    for (let i = 0; i < 16; i++) {
      const c = n.children[i];
      if (c?.kind === HASH) {
        c.base = path;
        c.nibble = i;
      }
    }
  }
  node.resolved = n;
}

/** The RLP encoding of a hashed node. */
function encodingOf(n: LoadedNode): Uint8Array {
  if (n.enc !== undefined) return n.enc;
  if (n.ref !== undefined && n.ref.length < 32) return n.ref;
  return encodeNode(n);
}

/**
 * Lists the hashed nodes of the new part of the tree, each with its path (`path`: where `node`
 * hangs), and marks the whole part stored.
 */
export function collectNew(node: TrieNode, out: TrieNodeEntry[], path: Uint8Array): void {
  if (node.stored) return;
  const n = node as LoadedNode;
  if (n.kind === EXTENSION) collectNew(n.child, out, joinNibbles(path, -1, n.path));
  else if (n.kind === BRANCH) {
    const children = n.children;
    for (let i = 0; i < 16; i++) {
      const c = children[i];
      if (c !== undefined && !c.stored) collectNew(c, out, joinNibbles(path, i, NO_NIBBLES));
    }
  }
  if (n.ref!.length === 32) {
    out.push([n.ref!, n.enc!, path]);
    n.enc = undefined;
  }
  n.stored = true;
}

/** The stored nodes a round of walks waits on, each with the keys (nibbles) of those walks. */
type Missing = Map<HashNode, Uint8Array[]>;

function waitsOn(missing: Missing, node: HashNode, key: Uint8Array): void {
  const keys = missing.get(node);
  if (keys) keys.push(key);
  else missing.set(node, [key]);
}
