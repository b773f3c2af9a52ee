/**
 * The pool's journal, as geth's (core/txpool/legacypool/journal.go): every accepted transaction
 * is appended to a file; at start-up the file is replayed through `pool.add` (so every
 * transaction is validated again, and those included or invalidated meanwhile are dropped); every
 * `rotateMs` the file is rewritten with exactly what the pool holds.
 *
 * Format: records of a 4-byte big-endian length and the raw signed transaction. A torn last
 * record (a crash mid-write) is ignored. Appends are buffered, not fsynced (as geth), and
 * gathered for APPEND_BATCH_MS into one write, not one per accepted transaction
 * (docs/decisions/0022-pool-journal-10ms-batches.md).
 *
 * While the builder journals its pre-confirmations (a block time and a flashblock journal), an
 * append is held `holdMs` first (`--pool-journal-delay`, DEFAULT_POOL_JOURNAL_HOLD_MS), and a
 * transaction that has left the pool by then is not written: at 1,000 transfers/s nearly every
 * one is pre-confirmed within a flashblock interval, and a pre-confirmed transaction is on disk
 * already, in the flashblock journal. Writing them all cost as many bytes as that journal
 * (~114 a transfer, decision 0490). A kill -9 can lose the accepted transactions of the last
 * `holdMs` that were not pre-confirmed yet; pre-confirmed ones are in the flashblock journal.
 * Without that journal (a block per transaction, manual mining) a block is shown a moment before
 * its batch is on disk and its transactions have no other copy: appends are not held.
 *
 * A write that fails (a full disk, an I/O error) is reported to `onError` and the journal goes on:
 * the transactions stay in the pool, the next append opens the file again, and the next rotation
 * rewrites it whole. A rotation is durable: the new file is fsynced before it is renamed over the
 * old one, and the directory after, so a crash leaves either file whole.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, open as openFile, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PoolTransaction, TxPool } from './types.js';

/** How long appends are gathered before they are written together. */
export const APPEND_BATCH_MS = 10;

/**
 * How long an accepted transaction waits before it is written, so that the ones pre-confirmed
 * meanwhile are not (decision 0490): a flashblock interval (200 ms) and the p99 of
 * submit-to-pending at load (~250 ms) fit in it twice.
 */
const DEFAULT_POOL_JOURNAL_HOLD_MS = 500;

export interface TxJournal {
  /** Raw transactions journaled so far, oldest first. */
  load(): Promise<Uint8Array[]>;
  /**
   * Appends one accepted transaction. `needed`: the append is held (holdMs) and then asked;
   * false (it left the pool and is on disk elsewhere, or was dropped) and it is not written.
   * Without it, the append is written at the next batch window.
   */
  append(raw: Uint8Array, needed?: () => boolean): void;
  /** Replaces the journal with exactly these transactions. */
  rotate(raws: Iterable<Uint8Array>): Promise<void>;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

/** Writes `bytes` to `path` and fsyncs it. */
async function writeSynced(path: string, bytes: Uint8Array): Promise<void> {
  const fh = await openFile(path, 'w');
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** fsyncs a directory, so that a rename in it is on disk. */
async function syncDir(dir: string): Promise<void> {
  const fh = await openFile(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** An append waiting for its write (Date.now() ms when due). */
interface Held {
  raw: Uint8Array;
  due: number;
  needed?: () => boolean;
}

/**
 * A journal in one file (created with its directory on first write). `onError` hears of every
 * failed write; nothing a write does throws or stops the process. `holdMs`: how long an append
 * waits before it is written (see the top of this file).
 */
export function createFileTxJournal(
  path: string,
  onError: (e: Error) => void = () => {},
  holdMs: number = DEFAULT_POOL_JOURNAL_HOLD_MS,
): TxJournal {
  let stream: WriteStream | undefined;
  /** The file being opened or rewritten; appends meanwhile wait in `held`. */
  let rotating: Promise<void> | undefined;
  /** Appends not written yet, in the order made. */
  let held: Held[] = [];
  let flushTimer: NodeJS.Timeout | undefined;

  const open = async (): Promise<WriteStream> => {
    await mkdir(dirname(path), { recursive: true });
    const s = createWriteStream(path, { flags: 'a' });
    // Without a listener a failed write (ENOSPC, EIO) is an uncaught error: the process died.
    s.on('error', (e) => {
      onError(e);
      // What it held is lost from the file, not from the pool; the next append opens it again.
      if (stream === s) stream = undefined;
    });
    return s;
  };
  const end = (s: WriteStream | undefined): Promise<void> =>
    new Promise((resolve) => {
      if (s === undefined || s.destroyed) return resolve();
      s.once('error', () => resolve());
      s.end(() => resolve());
    });
  /** The next write, when the first held append is due (never sooner than a batch window). */
  const schedule = (due: number): void => {
    if (flushTimer !== undefined || !held.length) return;
    flushTimer = setTimeout(() => flush(false), Math.max(APPEND_BATCH_MS, due - Date.now()));
    flushTimer.unref();
  };
  /**
   * Writes the appends due (all of them: a rotation or close), or due within the next batch
   * window, except those no longer needed.
   */
  const flush = (all: boolean): void => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    // No stream: the file is being opened or rewritten, and that flushes when it is done.
    if (stream === undefined) return;
    const until = Date.now() + APPEND_BATCH_MS;
    const raws: Uint8Array[] = [];
    const kept: Held[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const h of held) {
      if (!all && h.due > until) {
        kept.push(h);
        next = Math.min(next, h.due);
      } else if (h.needed === undefined || h.needed()) raws.push(h.raw);
    }
    held = kept;
    if (raws.length) stream.write(encodeRecords(raws));
    schedule(next);
  };

  return {
    async load() {
      let bytes: Uint8Array;
      try {
        bytes = await readFile(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw err;
      }
      return decodeRecords(bytes);
    },
    append(raw, needed) {
      // Framed at the flush, all in one buffer: a buffer of its own per record cost more than
      // the rest of the append.
      const due = Date.now() + (needed ? holdMs : 0);
      held.push({ raw, due, needed });
      schedule(due);
      if (stream !== undefined || rotating !== undefined) return;
      rotating = open()
        .then(
          (s) => {
            stream = s;
            flush(false);
          },
          () => {
            // Kept in `held`; the next append or rotation tries again.
          },
        )
        .finally(() => {
          rotating = undefined;
        });
    },
    async rotate(raws) {
      while (rotating !== undefined) await rotating;
      flush(true);
      const previous = stream;
      stream = undefined;
      const done = (async () => {
        await end(previous);
        await mkdir(dirname(path), { recursive: true });
        await writeSynced(`${path}.new`, encodeRecords([...raws]));
        await rename(`${path}.new`, path);
        await syncDir(dirname(path));
        stream = await open();
        // Appends made during the rewrite keep their hold.
        flush(false);
      })();
      rotating = done.finally(() => {
        rotating = undefined;
      });
      await rotating;
    },
    async close() {
      while (rotating !== undefined) await rotating;
      flush(true);
      const s = stream;
      stream = undefined;
      await end(s);
    },
  };
}

/** Records (a 4-byte big-endian length, then the transaction) for these, in one buffer. */
function encodeRecords(raws: readonly Uint8Array[]): Buffer {
  let size = 0;
  for (const raw of raws) size += 4 + raw.length;
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const raw of raws) {
    out.writeUInt32BE(raw.length, at);
    out.set(raw, at + 4);
    at += 4 + raw.length;
  }
  return out;
}

function decodeRecords(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  let at = 0;
  while (at + 4 <= bytes.length) {
    const length = view.getUint32(at);
    if (at + 4 + length > bytes.length) break;
    const raw = new Uint8Array(length);
    raw.set(bytes.subarray(at + 4, at + 4 + length));
    out.push(raw);
    at += 4 + length;
  }
  return out;
}

export interface JournalOptions {
  /** How often the journal is rewritten with the pool's content (geth: 1 hour). 0 = never. */
  rotateMs?: number;
  /**
   * Whether a transaction that leaves the pool now is on disk elsewhere (the builder journals
   * its pre-confirmations: interval mode with a flashblock journal). While true, appends are
   * held and those that left the pool are not written (see the top of this file).
   */
  preconfirmationsJournaled?: () => boolean;
  /** Hears of a rotation that failed (the next one tries again). */
  onError?: (e: Error) => void;
}

export interface AttachedJournal {
  /** Transactions reloaded into the pool. */
  loaded: number;
  /** Journaled transactions the pool refused on reload (included, replaced or now invalid). */
  dropped: number;
  /** Stops journaling: a last rotation, then the file is closed. */
  stop(): Promise<void>;
  /** Rewrites the file with exactly what the pool holds now (after transactions were dropped). */
  rotate(): Promise<void>;
}

/**
 * Reloads the journal into `pool` (re-validating every transaction), rewrites it with what was
 * kept, then journals every accepted transaction. Consumer: the node's composition root.
 */
export async function attachJournal(
  pool: TxPool,
  journal: TxJournal,
  options: JournalOptions = {},
): Promise<AttachedJournal> {
  const rotateMs = options.rotateMs ?? 60 * 60 * 1000;
  let loaded = 0;
  let dropped = 0;
  for (const raw of await journal.load()) {
    try {
      await pool.add(raw);
      loaded++;
    } catch {
      dropped++;
    }
  }
  const snapshot = (): Uint8Array[] => {
    const { pending, queued } = pool.content();
    const raws: Uint8Array[] = [];
    for (const byNonce of [...pending.values(), ...queued.values()]) {
      for (const ptx of byNonce.values()) raws.push(ptx.raw);
    }
    return raws;
  };
  // At start-up too: a journal that cannot be written is reported, and the node serves.
  await journal.rotate(snapshot()).catch((e) => options.onError?.(e));
  // Written only if still pooled when due: a pre-confirmed one is in the flashblock journal.
  const journaled = options.preconfirmationsJournaled;
  const unsubscribe = pool.onAdded((ptx: PoolTransaction) => {
    if (!journaled?.()) journal.append(ptx.raw);
    else journal.append(ptx.raw, () => pool.get(ptx.hash) === ptx || !journaled());
  });
  const timer =
    rotateMs > 0
      ? setInterval(() => {
          // The next rotation tries again; appends continue meanwhile.
          journal.rotate(snapshot()).catch((e) => options.onError?.(e));
        }, rotateMs)
      : undefined;
  timer?.unref();
  return {
    loaded,
    dropped,
    rotate: () => journal.rotate(snapshot()),
    async stop() {
      if (timer) clearInterval(timer);
      unsubscribe();
      // A journal that cannot be written does not keep the node from stopping.
      await journal.rotate(snapshot()).catch((e) => options.onError?.(e));
      await journal.close();
    },
  };
}
