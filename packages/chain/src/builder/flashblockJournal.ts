/**
 * The flashblock journal: what the builder has pre-confirmed in the block being built, on disk
 * before anyone can see it. Each flashblock is appended (a synchronous write), then published. Three
 * files, taken by block number modulo 3: a sealed block's batch reaches LevelDB behind the seal
 * (storage/chainStore.ts), so its records must outlive the opening of the next blocks; the
 * builder opens block n+1 (which starts over the file of block n-2) only once n-2 is on disk.
 * With two files the seal of block n waited for block n-1's batch, and a LevelDB write stall
 * (compactions, under sustained load) held the next block's first flashblocks back; block n-2
 * has had a whole block time more to land.
 * After a crash the node replays each journaled block past the head (same header inputs, same
 * transactions, same order) and seals it.
 *
 *   open (index 0) ─> <path>.<number % 3>: [block number, parent hash, timestamp]  truncate + write (O_DSYNC)
 *   flashblock n   ─> the same file: [record: index n, raw transactions in order]  append (O_DSYNC, synchronous)
 *
 * Format: records of a 4-byte big-endian length and a JSON body. A torn last record (a crash
 * mid-append) is ignored, as is a file whose first record does not open a block.
 */
import { constants, writeSync } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { bytesToHex, hexToBytes } from '../primitives/hex.js';

/** The inputs of a block's header that are not derived from its parent. */
export interface JournaledOpen {
  number: bigint;
  parentHash: Uint8Array;
  timestamp: bigint;
}

export interface JournaledBlock extends JournaledOpen {
  /** Raw signed transactions in pre-confirmation order. */
  txs: Uint8Array[];
  /** The last flashblock index that was journaled. */
  lastIndex: number;
}

type OpenRecord = { k: 'open'; number: string; parentHash: string; timestamp: string };
type TxsRecord = { k: 'txs'; index: number; txs: string[] };

export class FlashblockJournal {
  /** How many files the journal rotates through: the blocks whose records it keeps at once. */
  static readonly FILES = 3;
  private files?: FileHandle[];
  /** The file of the block being built. */
  private current?: FileHandle;

  private constructor(readonly path: string) {}

  /** The files of the journal at `path`: `<path>.0`, `<path>.1`, `<path>.2`. */
  static fileNames(path: string): string[] {
    return Array.from({ length: FlashblockJournal.FILES }, (_, i) => `${path}.${i}`);
  }

  /** Opens the journal at `path`; reading what it holds is `load()`. */
  static async open(path: string): Promise<FlashblockJournal> {
    const j = new FlashblockJournal(path);
    const files: FileHandle[] = [];
    try {
      // O_DSYNC: a write returns once its bytes are on disk, so an append is one trip to the
      // thread pool (write, then fdatasync, took two, the second only once this thread was free).
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;
      for (const name of FlashblockJournal.fileNames(path)) files.push(await open(name, flags));
    } catch (e) {
      for (const f of files) await f.close();
      throw e;
    }
    j.files = files;
    return j;
  }

  /** The blocks the files describe, oldest first (the block being built and up to two sealed before it). */
  async load(): Promise<JournaledBlock[]> {
    const out: JournaledBlock[] = [];
    for (const f of FlashblockJournal.fileNames(this.path)) {
      const b = await loadFile(f);
      if (b) out.push(b);
    }
    return out.sort((x, y) => (x.number < y.number ? -1 : x.number > y.number ? 1 : 0));
  }

  /**
   * Starts the file of block `o.number` over (index 0): truncate, write the opening (on disk when it returns).
   * The caller makes sure the block FILES before it is on disk (that file described it).
   */
  async openBlock(o: JournaledOpen): Promise<void> {
    const rec: OpenRecord = {
      k: 'open',
      number: o.number.toString(),
      parentHash: bytesToHex(o.parentHash),
      timestamp: o.timestamp.toString(),
    };
    if (!this.files) throw new Error('flashblock journal is closed');
    const fh = this.files[Number(o.number % BigInt(FlashblockJournal.FILES))];
    await fh.truncate(0);
    // Opened for appending: the write lands at the (new) end.
    await fh.write(encodeRecord(rec));
    this.current = fh;
  }

  /**
   * Appends flashblock `index` to the open block, on disk when the returned promise settles.
   * The write is synchronous, on this thread: an asynchronous write came back later than the
   * write itself took, queued in libuv's pool behind the database's reads
   * (docs/decisions/0033-synchronous-journal-write.md). Blocking costs little here: the builder
   * has nothing else to do until the flashblock is on disk, and the RPC server holds new
   * requests while a flashblock is due.
   */
  async append(index: number, txs: readonly Uint8Array[]): Promise<void> {
    if (!this.current) throw new Error('flashblock journal is closed or has no open block');
    const rec: TxsRecord = { k: 'txs', index, txs: txs.map(bytesToHex) };
    const bytes = encodeRecord(rec);
    for (let at = 0; at < bytes.length; ) at += writeSync(this.current.fd, bytes, at);
  }

  /**
   * Empties every file (on disk when it returns): what they held must never be replayed
   * (evm_revert dropped those blocks). `openBlock` starts the next one.
   */
  async reset(): Promise<void> {
    if (!this.files) throw new Error('flashblock journal is closed');
    for (const f of this.files) {
      await f.truncate(0);
      await f.datasync();
    }
    this.current = undefined;
  }

  async close(): Promise<void> {
    const files = this.files;
    this.files = undefined;
    this.current = undefined;
    for (const f of files ?? []) await f.close();
  }
}

async function loadFile(path: string): Promise<JournaledBlock | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let block: JournaledBlock | undefined;
  for (const rec of decodeRecords(bytes)) {
    if (rec.k === 'open') {
      block = {
        number: BigInt(rec.number),
        parentHash: hexToBytes(rec.parentHash),
        timestamp: BigInt(rec.timestamp),
        txs: [],
        lastIndex: 0,
      };
    } else if (block && rec.k === 'txs') {
      for (const t of rec.txs) block.txs.push(hexToBytes(t));
      block.lastIndex = rec.index;
    }
  }
  return block;
}

function encodeRecord(rec: OpenRecord | TxsRecord): Buffer {
  const body = Buffer.from(JSON.stringify(rec), 'utf8');
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

function decodeRecords(bytes: Buffer): (OpenRecord | TxsRecord)[] {
  const out: (OpenRecord | TxsRecord)[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const len = bytes.readUInt32BE(at);
    if (at + 4 + len > bytes.length) break; // torn last record
    try {
      out.push(JSON.parse(bytes.subarray(at + 4, at + 4 + len).toString('utf8')));
    } catch {
      break;
    }
    at += 4 + len;
  }
  return out;
}
