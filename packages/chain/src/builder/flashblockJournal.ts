/**
 * The flashblock journal: what the builder has pre-confirmed in the block being built, on disk
 * before anyone can see it. Each flashblock is appended and fsync'd, then published; a seal
 * starts the file over with the next block's opening record. After a crash the node replays the
 * records of the interrupted block (same header inputs, same transactions, same order) and seals.
 *
 *   open (index 0) ─> [record: block number, parent hash, timestamp]        truncate + fsync
 *   flashblock n   ─> [record: index n, raw transactions in order]          append + fsync
 *   seal           ─> the next block's index 0 replaces the file
 *
 * Format: records of a 4-byte big-endian length and a JSON body. A torn last record (a crash
 * mid-append) is ignored, as is a file whose first record does not open a block.
 */
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
  private fh?: FileHandle;

  private constructor(readonly path: string) {}

  /** Opens the journal at `path`; reading what it holds is `load()`. */
  static async open(path: string): Promise<FlashblockJournal> {
    const j = new FlashblockJournal(path);
    j.fh = await open(path, 'a');
    return j;
  }

  /** The block the file describes, or undefined when it holds none. */
  async load(): Promise<JournaledBlock | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.path);
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

  /**
   * Starts the file over for a new block (index 0): truncate, write the opening, fsync. Called
   * after the previous block's seal is on disk (its LevelDB batch is synced), so a crash in
   * between leaves at worst an empty journal, which describes no block.
   */
  async openBlock(o: JournaledOpen): Promise<void> {
    const rec: OpenRecord = {
      k: 'open',
      number: o.number.toString(),
      parentHash: bytesToHex(o.parentHash),
      timestamp: o.timestamp.toString(),
    };
    if (!this.fh) throw new Error('flashblock journal is closed');
    await this.fh.truncate(0);
    // Opened for appending: the write lands at the (new) end.
    await this.fh.write(encodeRecord(rec));
    await this.fh.datasync();
  }

  /** Appends flashblock `index` and returns once it is on disk. */
  async append(index: number, txs: readonly Uint8Array[]): Promise<void> {
    if (!this.fh) throw new Error('flashblock journal is closed');
    const rec: TxsRecord = { k: 'txs', index, txs: txs.map(bytesToHex) };
    await this.fh.write(encodeRecord(rec));
    await this.fh.datasync();
  }

  async close(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    await fh?.close();
  }
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
