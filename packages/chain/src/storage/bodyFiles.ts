/**
 * Sealed blocks' bodies (the block's RLP, its receipts as stored, its senders) in append-only
 * files beside LevelDB, written once: LevelDB keeps a 17-byte reference under the same key
 * (keys.block / receipts / senders). In LevelDB these values, ~140 bytes a transfer and most
 * of what a block's batch holds, were written to its log, then to a level-0 table, then again by
 * every compaction of their random (hash) keys: ~5x over 5 minutes at 1,000 transfers/s
 * (docs/perf/2026-11-27-disk-late.md, decision 0491). Geth keeps its old bodies in flat files
 * (the freezer) for the same reason.
 *
 *   writeBlock ─> append [block][receipts][senders] to the current file, fdatasync
 *              ─> LevelDB batch: key -> reference (file, offset, length), synced
 *   read       ─> LevelDB value; a reference is read from its file (pread)
 *
 * A crash between the two leaves bytes no reference names: they are never read, cost only
 * space, and the next append goes after them. The same holds for the bodies of blocks dropped
 * later (evm_revert, anvil_reset delete their references). Files are `<n>.bodies`, a new one
 * once the current one passes FILE_BYTES.
 *
 * The flashblock journal's segments (`<n>.journal`, builder/flashblockJournal.ts) are in the same
 * folder and are body files too (decision 0521): a block built in flashblocks keeps only its
 * shell here (journalBody.ts; its reference tagged 0x01), its transactions are read from its
 * journal records. Nothing is ever deleted: the files are kept as long as the blocks are (every
 * block: the node is an archive); what no reference names (reverted blocks, flashblocks given up,
 * the records of empty blocks) is dead space, not reclaimed.
 */
import { mkdir, open, readdir } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { assembleBlock, shellRange } from './journalBody.js';
import { blockTxsOf, type JournalRange } from './journalRecords.js';

type Bytes = Uint8Array;

/** A file is closed for appends once it holds this many bytes. */
const FILE_BYTES = 256 * 2 ** 20;
/** Files kept open for reads (older ones are opened again when read). */
const OPEN_READERS = 8;
/** A reference's length and first byte: no stored block, receipt list or sender list has them. */
const REF_BYTES = 17;
const REF_TAG = 0x00;
/** A reference to a block's shell: the block is assembled with its journal records (decision 0521). */
const SHELL_TAG = 0x01;

/**
 * Whether a stored value is a reference into the body files. A block's RLP and a receipt list
 * start with an RLP list byte (>= 0xc0), and senders are 20 bytes each: none is 17 bytes
 * starting with 0x00 or 0x01.
 */
export function isBodyRef(v: Bytes): boolean {
  return v.length === REF_BYTES && (v[0] === REF_TAG || v[0] === SHELL_TAG);
}

/** `ref` (an append's) as naming a block's shell: read assembles the block (journalBody.ts). */
export function shellRef(ref: Bytes): Bytes {
  const out = Uint8Array.from(ref);
  out[0] = SHELL_TAG;
  return out;
}

function encodeRef(file: number, offset: number, length: number): Bytes {
  const out = Buffer.alloc(REF_BYTES);
  out[0] = REF_TAG;
  out.writeUInt32BE(file, 1);
  out.writeBigUInt64BE(BigInt(offset), 5);
  out.writeUInt32BE(length, 13);
  return out;
}

function decodeRef(v: Bytes): { file: number; offset: number; length: number } {
  const b = Buffer.from(v.buffer, v.byteOffset, v.length);
  return { file: b.readUInt32BE(1), offset: Number(b.readBigUInt64BE(5)), length: b.readUInt32BE(13) };
}

interface Reader {
  handle: Promise<FileHandle>;
  /** Reads in progress on it. */
  using: number;
  /** Out of `readers`: closed when `using` reaches 0. */
  evicted: boolean;
}

function closeQuietly(handle: Promise<FileHandle>): void {
  handle.then((h) => h.close()).catch(() => {});
}

const fileName = (n: number) => `${String(n).padStart(6, '0')}.bodies`;
/** A journal segment's file (builder/flashblockJournal.ts writes them). */
export const journalFileName = (n: number) => `${String(n).padStart(6, '0')}.journal`;

export class BodyFiles {
  /** Bytes appended so far (wharf_block_body_file_bytes_total). */
  bytesWritten = 0;
  /** Read handles by file name, least recently used first. */
  private readonly readers = new Map<string, Reader>();

  private constructor(
    private readonly dir: string,
    private file: number,
    private appender: FileHandle,
    private size: number,
  ) {}

  /** Opens the files in `dir` (created if missing), appending to the newest. */
  static async open(dir: string): Promise<BodyFiles> {
    await mkdir(dir, { recursive: true });
    let last = 0;
    for (const name of await readdir(dir)) {
      const m = /^(\d+)\.bodies$/.exec(name);
      if (m) last = Math.max(last, Number(m[1]));
    }
    const appender = await open(join(dir, fileName(last)), 'a');
    const { size } = await appender.stat();
    return new BodyFiles(dir, last, appender, size);
  }

  /**
   * Appends `parts` one after the other and syncs them; answers a reference for each, to store
   * in LevelDB once this has settled. Calls must not overlap (the store's write queue is serial).
   */
  async append(parts: Bytes[]): Promise<Bytes[]> {
    if (this.size >= FILE_BYTES) {
      await this.appender.close();
      this.file++;
      this.appender = await open(join(this.dir, fileName(this.file)), 'a');
      this.size = 0;
    }
    const refs: Bytes[] = [];
    let at = this.size;
    for (const p of parts) {
      refs.push(encodeRef(this.file, at, p.length));
      at += p.length;
    }
    const bytes = Buffer.concat(parts);
    for (let done = 0; done < bytes.length; )
      done += (await this.appender.write(bytes, done, bytes.length - done)).bytesWritten;
    await this.appender.datasync();
    this.size = at;
    this.bytesWritten += bytes.length;
    return refs;
  }

  /** The folder of the body files and the journal's segments. */
  get folder(): string {
    return this.dir;
  }

  /** The bytes a reference (isBodyRef) names: a block's shell is read with its journal records. */
  async read(ref: Bytes): Promise<Bytes> {
    const { file, offset, length } = decodeRef(ref);
    const bytes = await this.readRange(fileName(file), offset, length);
    if (ref[0] !== SHELL_TAG) return bytes;
    const at = shellRange(bytes);
    const name = journalFileName(at.segment);
    const txs = blockTxsOf(await this.readRange(name, at.offset, at.length));
    if (!txs)
      throw new Error(
        `the flashblock journal ${join(this.dir, name)} does not hold a block's records at byte ${at.offset} (${at.length} bytes)`,
      );
    return assembleBlock(bytes, txs);
  }

  /** The bytes of a block's records in the journal (the writer's check, ChainStore.writeBlock). */
  readJournal(range: JournalRange): Promise<Bytes> {
    return this.readRange(journalFileName(range.segment), range.from, range.to - range.from);
  }

  private async readRange(name: string, offset: number, length: number): Promise<Bytes> {
    const r = this.reader(name);
    r.using++;
    try {
      const fh = await r.handle;
      const out = Buffer.allocUnsafe(length);
      for (let done = 0; done < length; ) {
        const { bytesRead } = await fh.read(out, done, length - done, offset + done);
        if (bytesRead === 0)
          throw new Error(`block body file ${join(this.dir, name)} ends before byte ${offset + length}`);
        done += bytesRead;
      }
      return new Uint8Array(out.buffer, out.byteOffset, length);
    } finally {
      if (--r.using === 0 && r.evicted) closeQuietly(r.handle);
    }
  }

  /** The file's read handle, opened on first use; the least recently used beyond OPEN_READERS go. */
  private reader(file: string): Reader {
    let r = this.readers.get(file);
    if (r) {
      // The most recently used last: the first is the one to close.
      this.readers.delete(file);
      this.readers.set(file, r);
      return r;
    }
    const handle = open(join(this.dir, file), 'r');
    handle.catch(() => {});
    r = { handle, using: 0, evicted: false };
    this.readers.set(file, r);
    if (this.readers.size > OPEN_READERS) {
      const [oldest, o] = this.readers.entries().next().value as [string, Reader];
      this.readers.delete(oldest);
      // Closed once the reads already using it are done.
      o.evicted = true;
      if (o.using === 0) closeQuietly(o.handle);
    }
    return r;
  }

  async close(): Promise<void> {
    await this.appender.close();
    for (const r of this.readers.values()) closeQuietly(r.handle);
    this.readers.clear();
  }
}
