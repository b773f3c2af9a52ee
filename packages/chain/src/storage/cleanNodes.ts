/**
 * Trie nodes of the disk layer kept in memory (geth's "clean cache"): the nodes each flush of the
 * disk layer writes, and the nodes read from LevelDB, by path, each with its keccak. A read the
 * diff layers cannot answer asks here before LevelDB (decision 0471).
 *
 * Why: the builder's warm trie forgets its nodes below the top levels every few blocks, and a
 * fresh recipient's path runs through nodes last written a minute ago, older than the diff
 * layers (~13 blocks at 1,000 transfers/s): without this, each is a LevelDB read on the main
 * thread (a trip to LevelDB's threads, then a keccak to check which version the path holds).
 *
 * Bounded by bytes: two generations, each one buffer of encodings (the entries packed one
 * after another, as [u16 length][32-byte keccak][encoding]) and a path -> offset map. New
 * entries go to the young one; a hit in the old one is copied up; when the young one is full it
 * becomes the old one and the old one is dropped whole. So memory is at most `maxBytes` plus the
 * maps' keys, and the garbage collector sees two buffers and two maps, not an object per node.
 *
 * Any entry may be a stale version of its path: a hit is one whose keccak is the one asked for
 * (a hash names its content), so a stale entry is only a miss.
 */

/** [u16 length][32-byte keccak] before each encoding. */
const HEADER = 34;
/** A node's encoding is at most 532 bytes (a branch of 16 hashes and a value); anything longer is not kept. */
const MAX_ENCODING = 0xffff;

class Generation {
  readonly index = new Map<string, number>();
  private buf?: Uint8Array;
  used = 0;

  constructor(readonly capacity: number) {}

  /** Whether an entry of `n` bytes of encoding still fits. */
  fits(n: number): boolean {
    return this.used + HEADER + n <= this.capacity;
  }

  put(key: string, hash: Uint8Array, enc: Uint8Array): void {
    // Allocated on the first entry: a node that never reads from disk keeps none.
    this.buf ??= new Uint8Array(this.capacity);
    const buf = this.buf;
    const at = this.used;
    buf[at] = enc.length >> 8;
    buf[at + 1] = enc.length & 0xff;
    buf.set(hash, at + 2);
    buf.set(enc, at + HEADER);
    this.used = at + HEADER + enc.length;
    this.index.set(key, at);
  }

  /** A copy of the encoding at `key` if its keccak is `hash` (a copy: a view would pin the buffer). */
  find(key: string, hash: Uint8Array): Uint8Array | undefined {
    const at = this.index.get(key);
    if (at === undefined) return undefined;
    const buf = this.buf!;
    for (let j = 0; j < 32; j++) if (buf[at + 2 + j] !== hash[j]) return undefined;
    const n = (buf[at] << 8) | buf[at + 1];
    return buf.slice(at + HEADER, at + HEADER + n);
  }
}

export class CleanNodes {
  private young: Generation;
  private old: Generation;
  hits = 0;
  misses = 0;

  /** `maxBytes`: both generations' buffers together; 0 keeps nothing. */
  constructor(readonly maxBytes: number) {
    this.young = new Generation(maxBytes >> 1);
    this.old = new Generation(0);
  }

  /** Entries held (both generations; a path may be in both). */
  get size(): number {
    return this.young.index.size + this.old.index.size;
  }

  /** Bytes of the buffers in use. */
  get bytes(): number {
    return this.young.used + this.old.used;
  }

  /** The node at path `key` (a latin1 database key) whose keccak is `hash`, if kept. */
  find(key: string, hash: Uint8Array): Uint8Array | undefined {
    const y = this.young.find(key, hash);
    if (y) {
      this.hits++;
      return y;
    }
    const o = this.old.find(key, hash);
    if (o) {
      this.hits++;
      // Used again: it stays one more generation.
      this.put(key, hash, o);
      return o;
    }
    this.misses++;
    return undefined;
  }

  /** Keeps `enc` (whose keccak is `hash`) as the node at path `key`. */
  put(key: string, hash: Uint8Array, enc: Uint8Array): void {
    if (enc.length > MAX_ENCODING || HEADER + enc.length > this.young.capacity) return;
    if (!this.young.fits(enc.length)) {
      this.old = this.young;
      this.young = new Generation(this.maxBytes >> 1);
    }
    this.young.put(key, hash, enc);
  }

  /** Forgets everything (anvil_reset: the trie on disk is deleted). */
  clear(): void {
    this.young = new Generation(this.maxBytes >> 1);
    this.old = new Generation(0);
  }
}
