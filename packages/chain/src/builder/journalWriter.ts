/**
 * The flashblock journal's appends, written on a thread of their own. A flashblock's record must
 * be on disk (O_DSYNC) before it is shown, and its state root is computed meanwhile. Written on
 * the event loop (writeSync), the root's hashing waited for the disk: under 1,000 tx/s the
 * write took 2-10 ms and the root finished right after it, every time. In libuv's pool
 * (fs.write), the write queued behind the database's reads for 7-15 ms. Here it runs at once,
 * beside the root.
 *
 *   write(fd, bytes) ─> postMessage (bytes transferred) ─> worker: writeSync until all written
 *                   <─ postMessage (id, error?)
 *
 * If the worker is gone, writes fall back to writeSync on the event loop.
 */
import { writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

// CommonJS, evaluated as the worker's script (no file to resolve from sources or the build).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { writeSync } = require('node:fs');
parentPort.on('message', ({ id, fd, bytes }) => {
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
    parentPort.postMessage({ id });
  } catch (e) {
    parentPort.postMessage({ id, error: { message: e.message, code: e.code } });
  }
});
`;

interface Pending {
  resolve: () => void;
  reject: (e: Error) => void;
}

export class JournalWriter {
  private worker?: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor() {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    // Alive only while a write is in flight (`write` refs it).
    worker.unref();
    worker.on('message', (m: { id: number; error?: { message: string; code?: string } }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (!this.pending.size) worker.unref();
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
      else p.resolve();
    });
    const gone = () => this.fail(new Error('the journal writer thread stopped'));
    worker.on('error', gone);
    worker.on('exit', gone);
    this.worker = worker;
  }

  /** Writes all of `bytes` to `fd` (an O_DSYNC file: on disk when this settles). `bytes` is taken over. */
  write(fd: number, bytes: Uint8Array): Promise<void> {
    const worker = this.worker;
    if (!worker) return writeHere(fd, bytes);
    const id = this.nextId++;
    const written = new Promise<void>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.ref();
      // A view of a bigger buffer (Buffer's pool) is copied: only a whole ArrayBuffer moves.
      const own =
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      worker.postMessage({ id, fd, bytes: own }, [own.buffer as ArrayBuffer]);
    });
    this.inFlight.add(written);
    const done = () => this.inFlight.delete(written);
    written.then(done, done);
    return written;
  }

  /** Stops the thread once the writes in flight are done. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await Promise.allSettled([...this.inFlight]);
    this.worker = undefined;
    await worker.terminate();
  }

  /**
   * The thread is gone with writes in flight: whether their bytes reached the disk is unknown, so
   * they fail (the flashblock is not shown; its transactions stay in the pool). Later writes run
   * on the event loop.
   */
  private fail(e: Error): void {
    if (!this.worker) return;
    this.worker = undefined;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }
}

async function writeHere(fd: number, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}
