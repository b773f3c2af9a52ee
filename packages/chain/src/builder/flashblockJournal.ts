/**
 * The flashblock journal: what the builder has pre-confirmed in the block being built, on disk
 * before anyone can see it. Each flashblock is appended, then published. Three files, taken by
 * block number modulo 3: a sealed block's batch reaches LevelDB behind the seal
 * (storage/chainStore.ts), so its records must outlive the opening of the next blocks; the
 * builder opens block n+1 (which starts over the file of block n-2) only once n-2 is on disk.
 * With two files the seal of block n waited for block n-1's batch, and a LevelDB write stall
 * (compactions, under sustained load) held the next block's first flashblocks back; block n-2
 * has had a whole block time more to land.
 * After a crash the node replays each journaled block past the head (same header inputs, same
 * transactions, same order) and seals it.
 *
 *   open (index 0) ─> <path>.<number % 3>: [block number, parent hash, timestamp]  truncate + write
 *   flashblock n   ─> the same file: [record: index n, raw transactions in order]  append
 *   budget passed  ─> the same file: [void n]  (flashblock n was not shown: replay drops it)
 *
 * The writes are made by a worker thread with its own descriptors (journalWriter.ts, O_DSYNC,
 * group commit): the event loop only waits for the answer, so a stalled disk delays the
 * flashblock, not the requests (decision 0210). The builder waits `waitMs` at most for an
 * append; past it the append fails (the flashblock is not shown, its transactions stay for the
 * next one) and a void record follows it, so that if the write lands later, replay skips it.
 *
 * Format (journalRecords.ts): records of a 4-byte big-endian length and a binary body (JSON in
 * journals written before decision 0420, still read). A torn last record (a crash mid-append) is
 * ignored, as is a file whose first record does not open a block.
 */
import { readFile } from 'node:fs/promises';
import { decodeRecords, encodeRecord, type JournalRecord } from './journalRecords.js';
import { JournalWriter } from './journalWriter.js';

/** How long the builder waits for an append by default (ms): `--journal-wait`. */
export const DEFAULT_JOURNAL_WAIT_MS = 2_000;

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

type OpenRecord = Extract<JournalRecord, { k: 'open' }>;
type TxsRecord = Extract<JournalRecord, { k: 'txs' }>;
type VoidRecord = Extract<JournalRecord, { k: 'void' }>;

export interface FlashblockJournalOptions {
  /** Longest wait for one append, in ms; past it the append fails. Default DEFAULT_JOURNAL_WAIT_MS. */
  waitMs?: number;
}

export class FlashblockJournal {
  /** How many files the journal rotates through: the blocks whose records it keeps at once. */
  static readonly FILES = 3;
  private writer?: JournalWriter;
  /** The file of the block being built. */
  private current?: number;
  private readonly waitMs: number;

  private constructor(
    readonly path: string,
    opts: FlashblockJournalOptions,
  ) {
    this.waitMs = opts.waitMs ?? DEFAULT_JOURNAL_WAIT_MS;
  }

  /**
   * The writer thread's kernel id (Linux): a thread the flashblocks wait for, which must not be
   * run at the helpers' lower priority (decision 0011).
   */
  get threadId(): number | undefined {
    return this.writer?.threadId;
  }

  /** The files of the journal at `path`: `<path>.0`, `<path>.1`, `<path>.2`. */
  static fileNames(path: string): string[] {
    return Array.from({ length: FlashblockJournal.FILES }, (_, i) => `${path}.${i}`);
  }

  /** Opens the journal at `path` (its writer thread); reading what it holds is `load()`. */
  static async open(path: string, opts: FlashblockJournalOptions = {}): Promise<FlashblockJournal> {
    const j = new FlashblockJournal(path, opts);
    j.writer = await JournalWriter.start(FlashblockJournal.fileNames(path));
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

  /** Bytes of the records written so far (wharf_flashblock_journal_bytes_total: the disk's share). */
  bytesWritten = 0;

  /**
   * Starts the file of block `o.number` over (index 0): truncate, write the opening (on disk when it returns).
   * The caller makes sure the block FILES before it is on disk (that file described it).
   */
  async openBlock(o: JournaledOpen): Promise<void> {
    const rec: OpenRecord = { k: 'open', number: o.number, parentHash: o.parentHash, timestamp: o.timestamp };
    if (!this.writer) throw new Error('flashblock journal is closed');
    const file = Number(o.number % BigInt(FlashblockJournal.FILES));
    const bytes = encodeRecord(rec);
    this.bytesWritten += bytes.length;
    await this.writer.write({ op: 'truncate', file, bytes });
    this.current = file;
  }

  /**
   * Appends flashblock `index` to the open block, on disk when the returned promise settles.
   * Rejects if the write failed, or did not finish within the budget (`waitMs`): then a void
   * record is queued behind it, so a write that lands late is never replayed.
   */
  async append(index: number, txs: readonly Uint8Array[]): Promise<void> {
    const writer = this.writer;
    const file = this.current;
    if (!writer || file === undefined) throw new Error('flashblock journal is closed or has no open block');
    const rec: TxsRecord = { k: 'txs', index, txs: [...txs] };
    const bytes = encodeRecord(rec);
    this.bytesWritten += bytes.length;
    const written = writer.write({ op: 'append', file, bytes });
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.waitMs);
    });
    try {
      if ((await Promise.race([written, budget])) !== 'late') return;
    } finally {
      clearTimeout(timer);
    }
    written.catch(() => {});
    const voided: VoidRecord = { k: 'void', index };
    writer.write({ op: 'append', file, bytes: encodeRecord(voided) }).catch(() => {});
    throw new Error(
      `the flashblock journal's disk did not confirm a write within ${this.waitMs} ms (--journal-wait): flashblock ${index} is not shown, its transactions wait for the next`,
    );
  }

  /**
   * Empties every file (on disk when it returns): what they held must never be replayed
   * (evm_revert dropped those blocks). `openBlock` starts the next one.
   */
  async reset(): Promise<void> {
    if (!this.writer) throw new Error('flashblock journal is closed');
    await this.writer.write({ op: 'reset' });
    this.current = undefined;
  }

  /** Waits for the writes asked so far, then closes the files. */
  async close(): Promise<void> {
    const writer = this.writer;
    this.writer = undefined;
    this.current = undefined;
    await writer?.close();
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
  let opened: OpenRecord | undefined;
  let appended: TxsRecord[] = [];
  for (const rec of decodeRecords(bytes)) {
    if (rec.k === 'open') {
      opened = rec;
      appended = [];
    } else if (opened && rec.k === 'txs') appended.push(rec);
    // The appends of that flashblock not shown (given up): the last ones with its index.
    else if (rec.k === 'void') while (appended.at(-1)?.index === rec.index) appended.pop();
  }
  if (!opened) return undefined;
  return {
    number: opened.number,
    parentHash: opened.parentHash,
    timestamp: opened.timestamp,
    txs: appended.flatMap((r) => r.txs),
    lastIndex: appended.at(-1)?.index ?? 0,
  };
}
