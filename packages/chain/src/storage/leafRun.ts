/**
 * One sorted run of the disk layer's leaves (decision 0670): an immutable file of entries in key
 * order, split into blocks of about `BLOCK_BYTES`, with the first key of every block in an index
 * the node keeps in memory. The leaves under a trie path are one key range (hashedState.ts
 * rangeUnder), so a node made from them reads one or two blocks of each run with `pread`, through
 * the OS's page cache: nothing is mapped into the process, unlike LevelDB's tables.
 *
 *   entries   key length u8 | key | value length u16 (0xffff: deleted) | value      (sorted)
 *   index     per block: key length u8 | first key | offset u48
 *   cleared   count u32 | per storage trie cleared: keys.hashedStoragePrefix(owner) (33 bytes)
 *   footer    index offset u64 | cleared offset u64 | entries u64 | magic "wharfLR1"
 *
 * A key is a leaf's key as hashedState.ts spells it ('h' + keccak(address), 'g' + keccak(address)
 * + keccak(slot)). A run newer than another shadows its keys, and a storage trie it cleared hides
 * that trie's entries in every older run (leafRuns.ts).
 */
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';

type Bytes = Uint8Array;

/** A run's file name ends so; the number before it is the run's id. */
export const RUN_SUFFIX = '.leaves';
/** Run `id`'s file in the runs' folder `dir` (leafRuns.ts keeps them; the subtree worker reads them). */
export const runFile = (dir: string, id: number) =>
  path.join(dir, `${String(id).padStart(8, '0')}${RUN_SUFFIX}`);

/** Entries are cut into blocks of about this many bytes; the index holds one key per block. */
export const BLOCK_BYTES = 4096;
/** The value length that marks a deleted leaf (a value may be empty: a fork's zeroed slot). */
const DELETED = 0xffff;
const MAGIC = Buffer.from('wharfLR1');
const FOOTER_BYTES = 32;
/** The longest key: 'g' + owner + slot. The index keeps its keys at this stride. */
const KEY_STRIDE = 65;
/** A storage trie's key prefix: 'g' + owner. */
export const OWNER_PREFIX_BYTES = 33;

/** Bounds of every key: none is below the empty key, none reaches a key longer than any. */
const NO_KEY = new Uint8Array(0);
const PAST_EVERY_KEY = new Uint8Array(KEY_STRIDE + 1).fill(0xff);

/** An entry: its key and value (null: the leaf is deleted). */
export type LeafEntry = [key: Bytes, value: Bytes | null];

/** Where a run's bytes are: a file (read with pread) or memory (`--ephemeral`). */
export interface RunSource {
  read(offset: number, length: number): Promise<Buffer>;
  close(): Promise<void>;
}

/**
 * A run's file, read with `pread`: through libuv's thread pool on the event loop, or blocking
 * (`blocking`) in a worker thread, where a read waits for nothing else and a trip through the
 * pool would cost more than a read from the page cache.
 */
class FileSource implements RunSource {
  constructor(
    private readonly file: FileHandle,
    private readonly blocking: boolean,
  ) {}
  async read(offset: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = this.blocking
        ? fs.readSync(this.file.fd, buf, done, length - done, offset + done)
        : (await this.file.read(buf, done, length - done, offset + done)).bytesRead;
      if (!n) throw new Error(`a leaf run ends at ${offset + done}, before ${offset + length}`);
      done += n;
    }
    return buf;
  }
  close(): Promise<void> {
    return this.file.close();
  }
}

class MemorySource implements RunSource {
  constructor(private readonly bytes: Buffer) {}
  async read(offset: number, length: number): Promise<Buffer> {
    return this.bytes.subarray(offset, offset + length);
  }
  async close(): Promise<void> {}
}

/**
 * Writes a run: entries in strictly increasing key order (`add`), then `finish`. To a file
 * (`path`: written, synced, its folder synced) or to memory (none).
 */
export class RunWriter {
  private chunks: Buffer[] = [];
  private chunk = Buffer.allocUnsafe(1 << 20);
  private at = 0;
  /** Bytes handed to the file or to `chunks` before `chunk`. */
  private written = 0;
  private blockStart = -1;
  private readonly index: { key: Bytes; offset: number }[] = [];
  private entries = 0;
  private last?: Bytes;

  private constructor(
    private readonly file?: FileHandle,
    private readonly path?: string,
  ) {}

  static async create(path?: string): Promise<RunWriter> {
    return new RunWriter(path ? await fs.promises.open(path, 'wx') : undefined, path);
  }

  private get offset(): number {
    return this.written + this.at;
  }

  /** Adds an entry; keys must come in increasing order (checked: a run out of order reads wrong). */
  async add(key: Bytes, value: Bytes | null): Promise<void> {
    if (this.last && Buffer.compare(this.last, key) >= 0)
      throw new Error('leaf run entries must be added in increasing key order');
    if (key.length > KEY_STRIDE) throw new Error(`a leaf key of ${key.length} bytes (at most ${KEY_STRIDE})`);
    if (value && value.length >= DELETED) throw new Error(`a leaf value of ${value.length} bytes`);
    this.last = key;
    if (this.blockStart < 0 || this.offset - this.blockStart >= BLOCK_BYTES) {
      this.blockStart = this.offset;
      this.index.push({ key: key.slice(), offset: this.offset });
    }
    const n = 3 + key.length + (value?.length ?? 0);
    if (this.at + n > this.chunk.length) await this.spill();
    const c = this.chunk;
    c[this.at++] = key.length;
    c.set(key, this.at);
    this.at += key.length;
    c.writeUInt16BE(value ? value.length : DELETED, this.at);
    this.at += 2;
    if (value) {
      c.set(value, this.at);
      this.at += value.length;
    }
    this.entries++;
  }

  private async spill(): Promise<void> {
    const out = this.chunk.subarray(0, this.at);
    if (this.file) await writeAll(this.file, out);
    else this.chunks.push(Buffer.from(out));
    this.written += this.at;
    this.at = 0;
  }

  /** Entries added so far. */
  get count(): number {
    return this.entries;
  }

  /** Writes the index, the cleared storage tries and the footer; opens the run for reading. */
  async finish(cleared: Bytes[]): Promise<LeafRun> {
    const indexOffset = this.offset;
    const tail: Buffer[] = [];
    for (const { key, offset } of this.index) {
      const b = Buffer.allocUnsafe(1 + key.length + 6);
      b[0] = key.length;
      b.set(key, 1);
      b.writeUIntBE(offset, 1 + key.length, 6);
      tail.push(b);
    }
    const clearedOffset = indexOffset + tail.reduce((s, b) => s + b.length, 0);
    const count = Buffer.allocUnsafe(4);
    count.writeUInt32BE(cleared.length);
    tail.push(count, ...cleared.map((c) => Buffer.from(c)));
    const footer = Buffer.allocUnsafe(FOOTER_BYTES);
    footer.writeBigUInt64BE(BigInt(indexOffset), 0);
    footer.writeBigUInt64BE(BigInt(clearedOffset), 8);
    footer.writeBigUInt64BE(BigInt(this.entries), 16);
    MAGIC.copy(footer, 24);
    tail.push(footer);
    await this.spill();
    const rest = Buffer.concat(tail);
    if (this.file && this.path) {
      await writeAll(this.file, rest);
      await this.file.sync();
      await this.file.close();
      await syncFolder(this.path);
      return LeafRun.openFile(this.path);
    }
    this.chunks.push(rest);
    return LeafRun.fromBytes(Buffer.concat(this.chunks));
  }

  /** Gives up a run being written: its file is closed and removed. */
  async abandon(): Promise<void> {
    if (!this.file || !this.path) return;
    await this.file.close().catch(() => {});
    await fs.promises.rm(this.path, { force: true });
  }
}

/** Writes all of `bytes` at the file's position (a write may take fewer bytes than asked). */
async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await file.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}

/** Syncs the folder of `path`: a new file's name is durable before anything refers to it. */
async function syncFolder(path: string): Promise<void> {
  const dir = await fs.promises.open(path.slice(0, path.lastIndexOf('/')) || '.', 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** A run open for reading: its index in memory, its entries read on demand. */
export class LeafRun {
  /** The storage tries this run cleared (latin1 of 'g' + owner): older runs' entries there are gone. */
  readonly cleared: Set<string>;

  private constructor(
    private readonly source: RunSource,
    /** First keys of the blocks, at KEY_STRIDE bytes each, and their lengths and offsets. */
    private readonly firstKeys: Buffer,
    private readonly keyLengths: Uint8Array,
    private readonly offsets: Float64Array,
    /** Where the entries end (the index starts). */
    readonly dataEnd: number,
    readonly entries: number,
    /** The file's whole size in bytes. */
    readonly size: number,
    cleared: string[],
  ) {
    this.cleared = new Set(cleared);
  }

  /** `blocking`: read with blocking `pread`s (a worker thread's: subtreeWorker.ts). */
  static async openFile(path: string, blocking = false): Promise<LeafRun> {
    const file = await fs.promises.open(path, 'r');
    try {
      const { size } = await file.stat();
      return await LeafRun.open(new FileSource(file, blocking), size, path);
    } catch (e) {
      await file.close();
      throw e;
    }
  }

  static fromBytes(bytes: Buffer): Promise<LeafRun> {
    return LeafRun.open(new MemorySource(bytes), bytes.length, 'a run in memory');
  }

  private static async open(source: RunSource, size: number, what: string): Promise<LeafRun> {
    if (size < FOOTER_BYTES) throw new Error(`${what} is not a leaf run (${size} bytes)`);
    const footer = await source.read(size - FOOTER_BYTES, FOOTER_BYTES);
    if (!footer.subarray(24).equals(MAGIC)) throw new Error(`${what} is not a leaf run (no footer)`);
    const indexOffset = Number(footer.readBigUInt64BE(0));
    const clearedOffset = Number(footer.readBigUInt64BE(8));
    const entries = Number(footer.readBigUInt64BE(16));
    const tail = await source.read(indexOffset, size - FOOTER_BYTES - indexOffset);
    const keys: [number, number][] = [];
    let at = 0;
    const indexEnd = clearedOffset - indexOffset;
    while (at < indexEnd) {
      keys.push([at, tail[at]]);
      at += 1 + tail[at] + 6;
    }
    const firstKeys = Buffer.alloc(keys.length * KEY_STRIDE);
    const keyLengths = new Uint8Array(keys.length);
    const offsets = new Float64Array(keys.length);
    for (const [i, [start, len]] of keys.entries()) {
      tail.copy(firstKeys, i * KEY_STRIDE, start + 1, start + 1 + len);
      keyLengths[i] = len;
      offsets[i] = tail.readUIntBE(start + 1 + len, 6);
    }
    const cleared: string[] = [];
    const n = tail.readUInt32BE(indexEnd);
    for (let i = 0; i < n; i++) {
      const from = indexEnd + 4 + i * OWNER_PREFIX_BYTES;
      cleared.push(tail.toString('latin1', from, from + OWNER_PREFIX_BYTES));
    }
    return new LeafRun(source, firstKeys, keyLengths, offsets, indexOffset, entries, size, cleared);
  }

  /** Compares block i's first key with `key` (<0: the block's key is smaller). */
  private compareFirst(i: number, key: Bytes): number {
    return this.firstKeys.compare(key, 0, key.length, i * KEY_STRIDE, i * KEY_STRIDE + this.keyLengths[i]);
  }

  /** The entries with keys in [gte, lt), in key order (deleted ones as null). */
  async range(gte: Bytes, lt: Bytes): Promise<LeafEntry[]> {
    const blocks = this.keyLengths.length;
    if (!blocks) return [];
    // The last block whose first key is <= gte (its entries may reach gte), and the first whose
    // first key is >= lt (nothing from there on is in range).
    let lo = 0;
    let hi = blocks;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compareFirst(mid, gte) <= 0) lo = mid + 1;
      else hi = mid;
    }
    const first = Math.max(0, lo - 1);
    lo = first;
    hi = blocks;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compareFirst(mid, lt) < 0) lo = mid + 1;
      else hi = mid;
    }
    const from = this.offsets[first];
    const to = lo < blocks ? this.offsets[lo] : this.dataEnd;
    if (to <= from) return [];
    return entriesIn(await this.source.read(from, to - from), gte, lt);
  }

  /** Every entry in key order, read `chunkBytes` at a time (a merge of runs). */
  async *all(chunkBytes = 1 << 20): AsyncGenerator<LeafEntry[]> {
    const blocks = this.keyLengths.length;
    let b = 0;
    while (b < blocks) {
      // Whole blocks: an entry never crosses a block's end.
      let e = b + 1;
      while (e < blocks && this.offsets[e] - this.offsets[b] < chunkBytes) e++;
      const from = this.offsets[b];
      const to = e < blocks ? this.offsets[e] : this.dataEnd;
      yield entriesIn(await this.source.read(from, to - from), NO_KEY, PAST_EVERY_KEY);
      b = e;
    }
  }

  close(): Promise<void> {
    return this.source.close();
  }
}

/**
 * The entries of whole blocks' bytes with keys in [gte, lt). Keys are compared in the buffer: a
 * block holds ~50 entries and a node made needs a few of them, so only those are copied out.
 */
function entriesIn(buf: Buffer, gte: Bytes, lt: Bytes): LeafEntry[] {
  const out: LeafEntry[] = [];
  let at = 0;
  while (at < buf.length) {
    const kl = buf[at];
    const k = at + 1;
    const vl = buf.readUInt16BE(k + kl);
    const v = k + kl + 2;
    const next = vl === DELETED ? v : v + vl;
    if (buf.compare(lt, 0, lt.length, k, k + kl) >= 0) break;
    if (buf.compare(gte, 0, gte.length, k, k + kl) >= 0) {
      const key = Uint8Array.prototype.slice.call(buf, k, k + kl);
      out.push([key, vl === DELETED ? null : Uint8Array.prototype.slice.call(buf, v, next)]);
    }
    at = next;
  }
  return out;
}
