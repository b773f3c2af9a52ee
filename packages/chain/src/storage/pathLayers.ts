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
 * One version of the node at a path: the block that wrote it, its keccak (latin1: a string of
 * 32 one-byte chars costs less memory than a 32-byte array with its own buffer) and encoding.
 */
interface Version {
  block: bigint;
  hash: string;
  enc: Uint8Array;
}

/**
 * What a kept node costs besides its encoding (its key and hash strings, the version object,
 * the view, the map entry; measured ~200 bytes), so that the memory limit is the process's.
 */
const NODE_OVERHEAD = 200;

/** A database key as a Map key (latin1: one char per byte, cheap to build). */
export const latin1 = (key: Uint8Array) =>
  Buffer.from(key.buffer, key.byteOffset, key.length).toString('latin1');
const fromLatin1 = (k: string) => Buffer.from(k, 'latin1');

export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The nodes a flush writes, and the first block whose nodes are not in them. */
export interface Flush {
  nodes: [key: Uint8Array, enc: Uint8Array][];
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
}

export class PathLayers {
  /** Per path: the versions the diff layers wrote, oldest first. */
  private readonly versions = new Map<string, Version[]>();
  /** The diff layers, oldest first: the block and the paths it wrote. */
  private layers: { block: bigint; keys: string[]; bytes: number }[] = [];
  /** Merged out of the diff layers, not yet handed to a flush: path -> newest version. */
  private buffer = new Map<string, Version>();
  private bufferBytes = 0;
  private bufferBlocks = 0;
  /** The first block merged into the buffer (the flush's `from`). */
  private bufferFrom: bigint | undefined;
  /** The buffer of the flush in progress: readable until its batch has landed. */
  private writing: Map<string, Version> | undefined;
  /** Bytes of node encodings in the diff layers (the memory they take, roughly). */
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
    let w = 0;
    if (this.writing) for (const [k, v] of this.writing) w += v.enc.length + k.length + NODE_OVERHEAD;
    return this.layerBytes + this.bufferBytes + w;
  }

  /** Starts at a disk layer holding the state of block `merged` (after a restart). */
  startAt(merged: bigint | undefined): void {
    this.merged = merged;
  }

  /** Adds block `block`'s new nodes as its diff layer; merges the oldest beyond the window. */
  add(block: bigint, nodes: readonly PathNode[]): void {
    const keys: string[] = [];
    let bytes = 0;
    // The encodings are views into the trie's shared slabs, which also hold every superseded
    // encoding of the block's flashblocks: kept as they are, each pins its slab (measured: RSS
    // grew ~10x the nodes kept). Copied into one buffer per layer instead.
    let size = 0;
    for (const n of nodes) size += n[2].length;
    const own = new Uint8Array(size);
    let at = 0;
    for (const [key, hash, shared] of nodes) {
      own.set(shared, at);
      const enc = own.subarray(at, at + shared.length);
      at += shared.length;
      const k = latin1(key);
      const v: Version = { block, hash: latin1(hash), enc };
      const vs = this.versions.get(k);
      if (!vs) this.versions.set(k, [v]);
      else if (vs[vs.length - 1].block === block) {
        // listed twice by one block: the later wins, the path is in `keys` once
        bytes += enc.length - vs[vs.length - 1].enc.length;
        vs[vs.length - 1] = v;
        continue;
      } else vs.push(v);
      keys.push(k);
      bytes += enc.length + NODE_OVERHEAD;
    }
    this.layers.push({ block, keys, bytes });
    this.layerBytes += bytes;
    while (
      this.layers.length > this.limits.window ||
      (this.layerBytes > this.limits.maxBytes && this.layers.length > 1)
    )
      this.mergeOldest();
  }

  private mergeOldest(): void {
    const layer = this.layers.shift()!;
    this.layerBytes -= layer.bytes;
    for (const k of layer.keys) {
      const vs = this.versions.get(k)!;
      const v = vs.shift()!;
      if (!vs.length) this.versions.delete(k);
      const old = this.buffer.get(k);
      this.bufferBytes += v.enc.length + (old ? -old.enc.length : k.length + NODE_OVERHEAD);
      this.buffer.set(k, v);
    }
    this.bufferFrom ??= layer.block;
    this.bufferBlocks++;
    this.merged = layer.block;
  }

  /** The encoding of the node at `key` whose keccak is `hash`, if memory holds that version. */
  find(key: string, hash: Uint8Array): Uint8Array | undefined {
    const vs = this.versions.get(key);
    const b = this.buffer.get(key);
    const w = this.writing?.get(key);
    if (!vs && !b && !w) return undefined;
    const h = latin1(hash);
    if (vs) for (let i = vs.length - 1; i >= 0; i--) if (vs[i].hash === h) return vs[i].enc;
    if (b?.hash === h) return b.enc;
    if (w?.hash === h) return w.enc;
    return undefined;
  }

  /**
   * The buffer as a flush, when one is due (or `force`) and none is in progress; the buffer
   * stays readable until `flushed()`.
   */
  takeFlush(force = false): Flush | undefined {
    if (this.writing || !this.buffer.size || this.merged === undefined) return undefined;
    const due = this.bufferBytes >= this.limits.flushBytes || this.bufferBlocks >= this.limits.flushBlocks;
    if (!due && !force) return undefined;
    const nodes: [Uint8Array, Uint8Array][] = [];
    for (const [k, v] of this.buffer) nodes.push([fromLatin1(k), v.enc]);
    const flush: Flush = {
      nodes,
      next: this.merged + 1n,
      from: this.bufferFrom ?? this.merged,
      bytes: this.bufferBytes,
    };
    this.writing = this.buffer;
    this.buffer = new Map();
    this.bufferBytes = 0;
    this.bufferBlocks = 0;
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
      for (const k of layer.keys) {
        const vs = this.versions.get(k)!;
        vs.pop();
        if (!vs.length) this.versions.delete(k);
      }
    }
    return true;
  }

  /** Forgets everything (anvil_reset: the database's trie ranges are deleted with it). */
  reset(): void {
    this.versions.clear();
    this.layers = [];
    this.buffer = new Map();
    this.bufferBytes = 0;
    this.bufferBlocks = 0;
    this.bufferFrom = undefined;
    this.layerBytes = 0;
    this.merged = undefined;
  }
}
