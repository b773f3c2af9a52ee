/**
 * The trie nodes of the newest blocks, kept in memory over the one trie on disk
 * (docs/decisions/0211-path-keyed-trie-storage.md):
 *
 *   diff layers (one per sealed block, the newest `window`)  path -> node, per block
 *        │ more than `window`: the oldest merges into
 *   buffer (the disk layer's unwritten part)                  path -> newest node
 *        │ over `flushBytes` or `flushBlocks`: written as ONE batch (ChainStore), with `L`
 *   LevelDB  keys.accountNode / keys.storageNode              path -> node, overwritten in place
 *
 * A read names the node's hash, path and owner; any version found there with that hash is the
 * node (a hash names its content), so one lookup serves every block in the window without
 * knowing which block asks. A path whose nodes are all other versions answers undefined: that
 * state is older than the window (resolve.ts refuses such blocks before reading).
 */
import type { PathNode } from './pathNodes.js';

/**
 * What a kept node costs besides its encoding and hash (its key string, the map entries that
 * find it, its end offset; measured ~150 bytes, counted as 200), so that the memory limit is the
 * process's.
 */
const NODE_OVERHEAD = 200;

/** A database key as a Map key (latin1: one char per byte, cheap to build). */
export const latin1 = (key: Uint8Array) =>
  Buffer.from(key.buffer, key.byteOffset, key.length).toString('latin1');
export const fromLatin1 = (k: string) => Buffer.from(k, 'latin1');

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * One block's nodes, packed: encodings one after another in one buffer, their keccaks in
 * another, and per path the node's index. Nothing per node is an object of its own but the
 * path's string (shared by every map that names the path): a layer of 6,000 nodes is a few
 * objects for the garbage collector to trace, not 30,000 (decision 0430).
 */
class PackedNodes {
  /** path -> index of its node here */
  readonly index = new Map<string, number>();
  /** Node i's encoding is enc[ends[i - 1] (0 for i = 0) .. ends[i]). */
  readonly enc: Uint8Array;
  readonly ends: Uint32Array;
  /** Node i's keccak is hashes[32 i .. 32 i + 32]. */
  readonly hashes: Uint8Array;
  /** Bytes the layer counts against the limit (encodings of the nodes it keeps + overhead). */
  bytes = 0;

  constructor(
    readonly block: bigint,
    nodes: readonly PathNode[],
  ) {
    let size = 0;
    for (const n of nodes) size += n[2].length;
    // Copied: the encodings given are views into the trie's shared slabs, which also hold every
    // superseded encoding of the block's flashblocks; kept as they are, each pins its slab
    // (measured: RSS grew ~10x the nodes kept).
    this.enc = new Uint8Array(size);
    this.ends = new Uint32Array(nodes.length);
    this.hashes = new Uint8Array(32 * nodes.length);
    let at = 0;
    for (let i = 0; i < nodes.length; i++) {
      const [key, hash, shared] = nodes[i];
      this.enc.set(shared, at);
      at += shared.length;
      this.ends[i] = at;
      this.hashes.set(hash, 32 * i);
      const k = latin1(key);
      const was = this.index.get(k);
      // Listed twice by one block: the later wins, the path counts once.
      if (was === undefined) this.bytes += shared.length + NODE_OVERHEAD;
      else this.bytes += shared.length - this.length(was);
      this.index.set(k, i);
    }
  }

  length(i: number): number {
    return this.ends[i] - (i ? this.ends[i - 1] : 0);
  }

  /** The length of the node this layer keeps at path `k` (one it holds). */
  lengthOf(k: string): number {
    return this.length(this.index.get(k)!);
  }

  /** Node i's encoding (a view), if its keccak is `hash`. */
  ifHash(i: number, hash: Uint8Array): Uint8Array | undefined {
    const h = this.hashes;
    const at = 32 * i;
    for (let j = 0; j < 32; j++) if (h[at + j] !== hash[j]) return undefined;
    return this.encoding(i);
  }

  encoding(i: number): Uint8Array {
    return this.enc.subarray(i ? this.ends[i - 1] : 0, this.ends[i]);
  }
}

/**
 * The disk layer's unwritten part: per path its newest node, named by the merged layer that
 * holds it (which it keeps until its flush has landed; the layer's own index finds the node).
 */
class MergedNodes {
  readonly layers: PackedNodes[] = [];
  /** path -> slot in `layers` of the newest layer with a node there (a small integer: no object) */
  readonly refs = new Map<string, number>();
  bytes = 0;
  blocks = 0;

  merge(layer: PackedNodes): void {
    const slot = this.layers.length;
    this.layers.push(layer);
    this.blocks++;
    for (const [k, i] of layer.index) {
      const old = this.refs.get(k);
      this.bytes +=
        layer.length(i) + (old === undefined ? k.length + NODE_OVERHEAD : -this.layers[old].lengthOf(k));
      this.refs.set(k, slot);
    }
  }

  find(key: string, hash: Uint8Array): Uint8Array | undefined {
    const slot = this.refs.get(key);
    if (slot === undefined) return undefined;
    const layer = this.layers[slot];
    return layer.ifHash(layer.index.get(key)!, hash);
  }

  /** Every path's newest node, as keys, encodings and keccaks for one batch. */
  *entries(): Generator<[string, Uint8Array, Uint8Array]> {
    for (const [k, slot] of this.refs) {
      const layer = this.layers[slot];
      const i = layer.index.get(k)!;
      yield [k, layer.encoding(i), layer.hashes.subarray(32 * i, 32 * i + 32)];
    }
  }
}

/** The nodes a flush writes, and the first block whose nodes are not in them. */
export interface Flush {
  /**
   * Every path's newest node (latin1 key, encoding, keccak), read from the buffer taken, which
   * nothing changes until `flushed()`: walked in slices, as often as needed. Not copied into
   * arrays when taken: over an hour at 1,000 fresh accounts/s a flush grew to ~250,000 nodes,
   * and making a key and an entry for each at once held the event loop for up to ~450 ms.
   */
  entries(): Iterable<[name: string, enc: Uint8Array, hash: Uint8Array]>;
  /** Value of keys.stateLayer once written: blocks from here on are replayed from keys.stateDiff. */
  next: bigint;
  /** The blocks merged into this flush (their forward diffs can go). */
  from: bigint;
  bytes: number;
}

export interface LayerLimits {
  /** Diff layers kept in memory: past state readable for this many blocks (`--state-window`). */
  window: number;
  /**
   * ...as long as their nodes take at most this many bytes (`--state-window-memory`): beyond,
   * the oldest merge early and the window is shorter (a block of 2,000 transfers over 100,000
   * accounts writes ~2.5 MB of nodes; an idle dev chain's blocks a few KB).
   */
  maxBytes: number;
  /** The buffer is written once it holds this many bytes of nodes... */
  flushBytes: number;
  /** ...or this many blocks' worth, whichever comes first. */
  flushBlocks: number;
  /**
   * Bytes of the disk layer's nodes kept in memory besides (cleanNodes.ts, `--state-cache-memory`):
   * what the flushes wrote and what was read from LevelDB, newest first. 0 or absent: none.
   */
  cleanBytes?: number;
}

export class PathLayers {
  /** The diff layers, oldest first. */
  private layers: PackedNodes[] = [];
  /** Per path: how many diff layers hold a node there (a read of any other path skips them). */
  private readonly inLayers = new Map<string, number>();
  /** Merged out of the diff layers, not yet handed to a flush. */
  private buffer = new MergedNodes();
  /** The first block merged into the buffer (the flush's `from`). */
  private bufferFrom: bigint | undefined;
  /** The buffer of the flush in progress: readable until its batch has landed. */
  private writing: MergedNodes | undefined;
  /** Bytes the diff layers count against the limit. */
  private layerBytes = 0;
  /** The newest block merged into the disk layer (buffer included); undefined: none yet. */
  private merged: bigint | undefined;

  constructor(readonly limits: LayerLimits) {}

  /** The oldest block whose state the layers can answer for (undefined: every block kept). */
  get oldest(): bigint | undefined {
    return this.merged;
  }

  get size(): number {
    return this.layers.length;
  }

  /** The newest block with a diff layer. */
  get newest(): bigint | undefined {
    return this.layers.at(-1)?.block;
  }

  /** Bytes of node encodings held in memory (diff layers, buffer, flush in progress). */
  get memoryBytes(): number {
    return this.layerBytes + this.buffer.bytes + (this.writing?.bytes ?? 0);
  }

  /** Starts at a disk layer holding the state of block `merged` (after a restart). */
  startAt(merged: bigint | undefined): void {
    this.merged = merged;
  }

  /** Adds block `block`'s new nodes as its diff layer; merges the oldest beyond the window. */
  add(block: bigint, nodes: readonly PathNode[]): void {
    const layer = new PackedNodes(block, nodes);
    for (const k of layer.index.keys()) this.inLayers.set(k, (this.inLayers.get(k) ?? 0) + 1);
    this.layers.push(layer);
    this.layerBytes += layer.bytes;
    while (
      this.layers.length > this.limits.window ||
      (this.layerBytes > this.limits.maxBytes && this.layers.length > 1)
    )
      this.mergeOldest();
  }

  private mergeOldest(): void {
    const layer = this.layers.shift()!;
    this.layerBytes -= layer.bytes;
    this.forget(layer);
    this.buffer.merge(layer);
    this.bufferFrom ??= layer.block;
    this.merged = layer.block;
  }

  /** The layer's paths are in one diff layer fewer. */
  private forget(layer: PackedNodes): void {
    for (const k of layer.index.keys()) {
      const n = this.inLayers.get(k)! - 1;
      if (n) this.inLayers.set(k, n);
      else this.inLayers.delete(k);
    }
  }

  /** The encoding of the node at `key` whose keccak is `hash`, if memory holds that version. */
  find(key: string, hash: Uint8Array): Uint8Array | undefined {
    let left = this.inLayers.get(key) ?? 0;
    for (let l = this.layers.length - 1; left > 0 && l >= 0; l--) {
      const layer = this.layers[l];
      const i = layer.index.get(key);
      if (i === undefined) continue;
      left--;
      const enc = layer.ifHash(i, hash);
      if (enc) return enc;
    }
    return this.buffer.find(key, hash) ?? this.writing?.find(key, hash);
  }

  /**
   * The buffer as a flush, when one is due (or `force`) and none is in progress; the buffer
   * stays readable until `flushed()`.
   */
  takeFlush(force = false): Flush | undefined {
    if (this.writing || !this.buffer.refs.size || this.merged === undefined) return undefined;
    const due = this.buffer.bytes >= this.limits.flushBytes || this.buffer.blocks >= this.limits.flushBlocks;
    if (!due && !force) return undefined;
    const taken = this.buffer;
    const flush: Flush = {
      entries: () => taken.entries(),
      next: this.merged + 1n,
      from: this.bufferFrom ?? this.merged,
      bytes: taken.bytes,
    };
    this.writing = taken;
    this.buffer = new MergedNodes();
    this.bufferFrom = undefined;
    return flush;
  }

  /** The flush taken last has landed: LevelDB holds its nodes. */
  flushed(): void {
    this.writing = undefined;
  }

  /**
   * Drops the diff layers above block `block` (evm_revert). Returns false when `block` is older
   * than the disk layer (its nodes were overwritten there): the caller refuses the revert.
   */
  dropAbove(block: bigint): boolean {
    if (this.merged !== undefined && block < this.merged) return false;
    while (this.layers.length && this.layers[this.layers.length - 1].block > block) {
      const layer = this.layers.pop()!;
      this.layerBytes -= layer.bytes;
      this.forget(layer);
    }
    return true;
  }

  /** Forgets everything (anvil_reset: the database's trie ranges are deleted with it). */
  reset(): void {
    this.inLayers.clear();
    this.layers = [];
    this.buffer = new MergedNodes();
    this.bufferFrom = undefined;
    this.layerBytes = 0;
    this.merged = undefined;
  }
}
