/**
 * The flashblock journal: what the builder has pre-confirmed in the block being built, on disk
 * before anyone can see it. Each flashblock is appended, then published. The journal is an
 * append-only log in segments (`<n>.journal`) in the body files' folder, and a sealed block's body
 * IS its records there (decision 0521): the block's batch keeps a reference to them
 * (storage/journalBody.ts) instead of writing the transactions a second time. Nothing is
 * truncated; the segments are kept as long as the blocks are (storage/bodyFiles.ts).
 * After a crash the node replays each journaled block past the head (same header inputs, same
 * transactions, same order) and seals it: the journal is read from where the newest block on disk
 * starts (keys.journalStart), so a restart reads a few blocks' records, not the log.
 *
 *   open (index 0) ─> [block number, parent hash, timestamp]             append (a new segment
 *                     past SEGMENT_BYTES, and at every start: a crash may have torn the last one)
 *   flashblock n   ─> [record: index n, raw transactions in order]       append
 *   budget passed  ─> [void n]  (flashblock n was not shown: replay drops it)
 *   evm_revert     ─> [reset]   (nothing before it is replayed)
 *
 * The writes are made by a worker thread with its own descriptor (journalWriter.ts, O_DSYNC,
 * group commit): the event loop only waits for the answer, so a stalled disk delays the
 * flashblock, not the requests (decision 0210). The builder waits `waitMs` at most for an
 * append; past it the append fails (the flashblock is not shown, its transactions stay for the
 * next one) and a void record follows it, so that if the write lands later, replay skips it.
 *
 * Format (storage/journalRecords.ts): records of a 4-byte big-endian length and a binary body.
 * A data directory of before 0521 has three files `flashblocks.journal.{0,1,2}` (one block each,
 * started over in turn; JSON records before 0420): they are read at start (`legacyPath`) and
 * removed once their blocks are on disk.
 */
import { mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  decodeRecords,
  encodeRecord,
  type JournalPosition,
  type JournalRange,
  type JournalRecord,
} from '../storage/journalRecords.js';
import { JournalWriter, type Written } from './journalWriter.js';

/** A segment is closed for appends once it holds this many bytes (at a block's opening). */
export const SEGMENT_BYTES = 256 * 2 ** 20;
const SEGMENT = /^(\d+)\.journal$/;

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
  /** Where the newest block on disk starts (ChainStore.journalStart): `load` reads from there. */
  from?: JournalPosition;
  /** The three files of the journal of before decision 0521 (`<legacyPath>.0` ...), read by `load`. */
  legacyPath?: string;
  /** A segment's length past which a block opens in a new one. Default SEGMENT_BYTES. */
  segmentBytes?: number;
}

export class FlashblockJournal {
  /** Files of the journal before decision 0521, by block number modulo 3. */
  static readonly LEGACY_FILES = 3;
  private writer?: JournalWriter;
  private readonly waitMs: number;
  /** The segment being written and its length, as the writer's answers say. */
  private segment = 0;
  private size = 0;
  /** The block being built: where its records are. */
  private block?: { number: bigint } & JournalRange;

  private constructor(
    /** The folder of the segments (the body files' folder). */
    readonly dir: string,
    private readonly opts: FlashblockJournalOptions,
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

  /** The files of the journal of before decision 0521 at `path`: `<path>.0`, `<path>.1`, `<path>.2`. */
  static legacyFileNames(path: string): string[] {
    return Array.from({ length: FlashblockJournal.LEGACY_FILES }, (_, i) => `${path}.${i}`);
  }

  /** The segments in `dir`, oldest first. */
  static async segments(dir: string): Promise<number[]> {
    const out: number[] = [];
    for (const name of await readdir(dir)) {
      const m = SEGMENT.exec(name);
      if (m) out.push(Number(m[1]));
    }
    return out.sort((a, b) => a - b);
  }

  /**
   * Opens the journal in the folder `dir` (its writer thread, on a new segment); reading what it
   * holds is `load()`.
   */
  static async open(dir: string, opts: FlashblockJournalOptions = {}): Promise<FlashblockJournal> {
    const j = new FlashblockJournal(dir, opts);
    let first: number;
    try {
      await mkdir(dir, { recursive: true });
      first = ((await FlashblockJournal.segments(dir)).at(-1) ?? -1) + 1;
    } catch (e) {
      throw new Error(`cannot open the flashblock journal: ${(e as Error).message}`, { cause: e });
    }
    j.writer = await JournalWriter.start(dir, first);
    j.segment = first;
    return j;
  }

  /**
   * The blocks the journal holds from where the newest block on disk starts, oldest first (that
   * block, the ones sealed after it and the block being built), with those of a journal of before
   * decision 0521.
   */
  async load(): Promise<JournaledBlock[]> {
    const out: JournaledBlock[] = [];
    if (this.opts.legacyPath)
      for (const f of FlashblockJournal.legacyFileNames(this.opts.legacyPath)) {
        const b = await loadFile(f);
        if (b) out.push(b);
      }
    out.sort((x, y) => (x.number < y.number ? -1 : x.number > y.number ? 1 : 0));
    const from = this.opts.from;
    let current: { open: OpenRecord; appended: TxsRecord[] } | undefined;
    const done = () => {
      if (current) out.push(blockOf(current.open, current.appended));
      current = undefined;
    };
    for (const seg of await FlashblockJournal.segments(this.dir)) {
      if (from && seg < from.segment) continue;
      const bytes = await readFrom(join(this.dir, segmentName(seg)), from?.segment === seg ? from.offset : 0);
      for (const rec of decodeRecords(bytes)) {
        if (rec.k === 'open') {
          // Block n is opened only on a head at n - 1: a block n or later read before (the same
          // block opened again for new header settings, or left empty at a crash and opened
          // again after the restart) is not in the chain.
          done();
          for (let i = out.length - 1; i >= 0; i--) if (out[i].number >= rec.number) out.splice(i, 1);
          current = { open: rec, appended: [] };
        } else if (rec.k === 'txs') current?.appended.push(rec);
        else if (rec.k === 'void')
          while (current?.appended.at(-1)?.index === rec.index) current.appended.pop();
        else {
          // History rewritten: nothing before is replayed.
          current = undefined;
          out.length = 0;
        }
      }
      // A torn last record ends the segment (a crash); the next segment was started after it.
      done();
    }
    return out;
  }

  /** Removes the journal files of before decision 0521 (once the blocks they held are on disk). */
  async dropLegacy(): Promise<void> {
    if (!this.opts.legacyPath) return;
    for (const f of FlashblockJournal.legacyFileNames(this.opts.legacyPath)) await rm(f, { force: true });
  }

  /** Bytes of the records written so far (wharf_flashblock_journal_bytes_total: the disk's share). */
  bytesWritten = 0;

  /** Where block `number`'s records are, if it is the block being built (the seal's BlockWrite). */
  rangeOf(number: bigint): JournalRange | undefined {
    const b = this.block;
    if (b?.number !== number) return undefined;
    return { segment: b.segment, from: b.from, to: b.to, complete: b.complete };
  }

  private async write(bytes: Uint8Array): Promise<Written> {
    if (!this.writer) throw new Error('flashblock journal is closed');
    this.bytesWritten += bytes.length;
    const w = await this.writer.write({ op: 'append', bytes });
    this.wrote(w, bytes.length);
    return w;
  }

  private wrote(w: Written, length: number): void {
    if (w.seg !== this.segment) {
      this.segment = w.seg;
      this.size = 0;
    }
    this.size = Math.max(this.size, w.at + length);
  }

  /**
   * Writes the opening of block `o.number` (on disk when it returns): its flashblocks follow it.
   * A new segment first once the current one is SEGMENT_BYTES long.
   */
  async openBlock(o: JournaledOpen): Promise<void> {
    if (!this.writer) throw new Error('flashblock journal is closed');
    this.block = undefined;
    if (this.size >= (this.opts.segmentBytes ?? SEGMENT_BYTES))
      this.wrote(await this.writer.write({ op: 'roll' }), 0);
    const rec: OpenRecord = { k: 'open', number: o.number, parentHash: o.parentHash, timestamp: o.timestamp };
    const bytes = encodeRecord(rec);
    const w = await this.write(bytes);
    this.block = { number: o.number, segment: w.seg, from: w.at, to: w.at + bytes.length, complete: true };
  }

  /**
   * Appends flashblock `index` to the open block, on disk when the returned promise settles.
   * Rejects if the write failed, or did not finish within the budget (`waitMs`): then a void
   * record is queued behind it, so a write that lands late is never replayed.
   */
  async append(index: number, txs: readonly Uint8Array[]): Promise<void> {
    const writer = this.writer;
    const block = this.block;
    if (!writer || !block) throw new Error('flashblock journal is closed or has no open block');
    const rec: TxsRecord = { k: 'txs', index, txs: [...txs] };
    const bytes = encodeRecord(rec);
    const written = this.write(bytes);
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.waitMs);
    });
    let w: Written | 'late';
    try {
      w = await Promise.race([written, budget]);
    } catch (e) {
      block.complete = false;
      throw e;
    } finally {
      clearTimeout(timer);
    }
    if (w !== 'late') {
      // The block's records are one run: anything else in between and its body is written whole.
      if (w.seg === block.segment && w.at === block.to) block.to = w.at + bytes.length;
      else block.complete = false;
      return;
    }
    block.complete = false;
    written.catch(() => {});
    const voided: VoidRecord = { k: 'void', index };
    this.write(encodeRecord(voided)).catch(() => {});
    throw new Error(
      `the flashblock journal's disk did not confirm a write within ${this.waitMs} ms (--journal-wait): flashblock ${index} is not shown, its transactions wait for the next`,
    );
  }

  /**
   * Appends a reset record (on disk when it returns): what the journal held must never be
   * replayed (evm_revert dropped those blocks). `openBlock` starts the next one.
   */
  async reset(): Promise<void> {
    this.block = undefined;
    await this.write(encodeRecord({ k: 'reset' }));
  }

  /** Waits for the writes asked so far, then closes the files. */
  async close(): Promise<void> {
    const writer = this.writer;
    this.writer = undefined;
    this.block = undefined;
    await writer?.close();
  }
}

const segmentName = (n: number) => `${String(n).padStart(6, '0')}.journal`;

/** The bytes of the file `path` from `offset` on (empty if it is missing). */
async function readFrom(path: string, offset: number): Promise<Buffer> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw e;
  }
  try {
    const { size } = await fh.stat();
    const out = Buffer.allocUnsafe(Math.max(0, size - offset));
    for (let done = 0; done < out.length; ) {
      const { bytesRead } = await fh.read(out, done, out.length - done, offset + done);
      if (!bytesRead) return out.subarray(0, done);
      done += bytesRead;
    }
    return out;
  } finally {
    await fh.close();
  }
}

function blockOf(opened: OpenRecord, appended: TxsRecord[]): JournaledBlock {
  return {
    number: opened.number,
    parentHash: opened.parentHash,
    timestamp: opened.timestamp,
    txs: appended.flatMap((r) => r.txs),
    lastIndex: appended.at(-1)?.index ?? 0,
  };
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
  return blockOf(opened, appended);
}
