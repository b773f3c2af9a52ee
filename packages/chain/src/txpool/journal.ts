/**
 * The pool's journal, as geth's (core/txpool/legacypool/journal.go): every accepted transaction
 * is appended to a file; at start-up the file is replayed through `pool.add` (so every
 * transaction is validated again, and those included or invalidated meanwhile are dropped); every
 * `rotateMs` the file is rewritten with exactly what the pool holds.
 *
 * Format: records of a 4-byte big-endian length and the raw signed transaction. A torn last
 * record (a crash mid-write) is ignored. Appends are buffered, not fsynced (as geth), and
 * gathered for APPEND_BATCH_MS into one write, not one per accepted transaction
 * (docs/decisions/0022-pool-journal-10ms-batches.md). A crash can lose the last few milliseconds of
 * accepted transactions that were not yet pre-confirmed; pre-confirmed ones are in the
 * flashblock journal.
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

export interface TxJournal {
  /** Raw transactions journaled so far, oldest first. */
  load(): Promise<Uint8Array[]>;
  /** Appends one accepted transaction. */
  append(raw: Uint8Array): void;
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

/**
 * A journal in one file (created with its directory on first write). `onError` hears of every
 * failed write; nothing a write does throws or stops the process.
 */
export function createFileTxJournal(path: string, onError: (e: Error) => void = () => {}): TxJournal {
  let stream: WriteStream | undefined;
  /** The file being opened or rewritten; appends meanwhile wait in `batch`. */
  let rotating: Promise<void> | undefined;
  /** Transactions waiting for the next write to `stream` (or for a stream). */
  let batch: Uint8Array[] = [];
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
  const flush = (): void => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    // No stream: the file is being opened or rewritten, and that flushes when it is done.
    if (stream === undefined || !batch.length) return;
    stream.write(encodeRecords(batch));
    batch = [];
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
    append(raw) {
      // Framed at the flush, all in one buffer: a buffer of its own per record cost more than
      // the rest of the append.
      batch.push(raw);
      if (flushTimer === undefined) {
        flushTimer = setTimeout(flush, APPEND_BATCH_MS);
        flushTimer.unref();
      }
      if (stream !== undefined || rotating !== undefined) return;
      rotating = open()
        .then(
          (s) => {
            stream = s;
            flush();
          },
          () => {
            // Kept in `batch`; the next append or rotation tries again.
          },
        )
        .finally(() => {
          rotating = undefined;
        });
    },
    async rotate(raws) {
      while (rotating !== undefined) await rotating;
      flush();
      const previous = stream;
      stream = undefined;
      const done = (async () => {
        await end(previous);
        await mkdir(dirname(path), { recursive: true });
        await writeSynced(`${path}.new`, encodeRecords([...raws]));
        await rename(`${path}.new`, path);
        await syncDir(dirname(path));
        stream = await open();
        flush();
      })();
      rotating = done.finally(() => {
        rotating = undefined;
      });
      await rotating;
    },
    async close() {
      while (rotating !== undefined) await rotating;
      flush();
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
  const unsubscribe = pool.onAdded((ptx: PoolTransaction) => journal.append(ptx.raw));
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
