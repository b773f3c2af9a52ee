/**
 * The flashblock journal's appends, written beside the flashblock's state root. A record must be
 * on disk (O_DSYNC) before its flashblock is shown, and the root is computed meanwhile. Written
 * on the event loop, the root's hashing waited for the disk (in the late flashblock warnings
 * `rootMs` equalled `journalMs`, 2-22 ms); in libuv's pool the write queued behind the
 * database's reads. Here a thread of its own takes the write while the event loop hashes.
 *
 * A thread that is slow to wake costs nothing: whoever claims the write first makes it. If the
 * thread has not begun when the event loop is done with the root, the event loop writes the
 * record itself (as before this thread existed). A writer thread that was always waited for
 * made a burst's first flashblock 100-160 ms late under CPU contention (two busy loops beside
 * the test), because its wake-up came late (reverted in eb89487).
 *
 *   begin(fd, bytes) ─> copy into the shared buffer ─> state POSTED ─> Atomics.notify
 *   thread:     Atomics.wait ─> CAS POSTED→WRITING ─> writeSync ─> DONE | FAILED ─> notify
 *   finish():   CAS POSTED→STOLEN ─> writeSync here       (the thread had not begun)
 *               or Atomics.wait until DONE | FAILED    (it is writing: the event loop blocks as
 *               long as a write here would have, BLOCKING_WAIT_MS at most, then waits without
 *               blocking: a stalled disk stalls the flashblock, not RPC)
 *
 * One write at a time (the builder's flashblocks are serial). A record bigger than the shared
 * buffer is written on the event loop at `finish()`.
 */
import { writeSync } from 'node:fs';
import { getSystemErrorName } from 'node:util';
import { Worker } from 'node:worker_threads';
import { waitAsync } from '../primitives/atomics.js';

/** The shared buffer's room for one record: a flashblock of ~2,000 transfers as hex JSON. */
const DATA_BYTES = 1 << 20;
/** Int32 indexes of the control words. */
const STATE = 0;
const LENGTH = 1;
const FD = 2;
/** The errno of a failed write (negative, as Node reports it). */
const ERRNO = 3;
/** How long the thread's write took, in microseconds. */
const ELAPSED_US = 4;
const CONTROL_WORDS = 5;

const IDLE = 0;
const POSTED = 1;
const WRITING = 2;
const DONE = 3;
const FAILED = 4;
const STOLEN = 5;
const STOP = 6;

/**
 * How long `finish()` blocks the event loop for a write the thread is making: longer than any
 * write measured at 1,000 tx/s (7.6 ms at worst in a 30 s run), well short of an interval.
 */
const BLOCKING_WAIT_MS = 25;

// CommonJS, evaluated as the worker's script (no file to resolve from sources or the build).
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const control = new Int32Array(workerData.control);
const data = new Uint8Array(workerData.data);
for (;;) {
  const state = Atomics.load(control, ${STATE});
  if (state === ${STOP}) break;
  if (state === ${POSTED} && Atomics.compareExchange(control, ${STATE}, ${POSTED}, ${WRITING}) === ${POSTED}) {
    let outcome = ${DONE};
    const from = performance.now();
    try {
      const fd = control[${FD}];
      const length = control[${LENGTH}];
      for (let at = 0; at < length; ) at += writeSync(fd, data, at, length - at);
      control[${ELAPSED_US}] = Math.round((performance.now() - from) * 1000);
    } catch (e) {
      control[${ERRNO}] = typeof e.errno === 'number' ? e.errno : -5;
      outcome = ${FAILED};
    }
    Atomics.store(control, ${STATE}, outcome);
    Atomics.notify(control, ${STATE});
    continue;
  }
  Atomics.wait(control, ${STATE}, state);
}
`;

/**
 * A write under way: `finish()` settles once it is on disk (how long the write itself took, in
 * ms, on whichever thread made it), or rejects with why it is not. Call it once.
 */
export interface JournalWrite {
  finish(): Promise<number>;
}

export class JournalWriter {
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  private readonly data = new Uint8Array(new SharedArrayBuffer(DATA_BYTES));
  private worker?: Worker;
  private busy = false;

  constructor() {
    try {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { control: this.control.buffer, data: this.data.buffer },
      });
      // It holds the process open only while `finish()` waits for it.
      worker.unref();
      const gone = () => {
        this.worker = undefined;
        // A write it had claimed may or may not be on disk: it failed (its flashblock is not shown).
        if (Atomics.compareExchange(this.control, STATE, WRITING, FAILED) === WRITING) {
          this.control[ERRNO] = -5; // EIO
          Atomics.notify(this.control, STATE);
        }
      };
      worker.on('error', gone);
      worker.on('exit', gone);
      this.worker = worker;
    } catch {
      // No thread: every write is made on the event loop, at finish().
    }
  }

  /** Starts writing all of `bytes` to `fd` (an O_DSYNC file). Call `finish()` before the next. */
  begin(fd: number, bytes: Uint8Array): JournalWrite {
    if (this.busy) throw new Error('a journal write is already under way');
    this.busy = true;
    if (!this.worker || bytes.length > DATA_BYTES) {
      return { finish: () => this.settle(async () => writeAll(fd, bytes, bytes.length)) };
    }
    this.data.set(bytes, 0);
    this.control[LENGTH] = bytes.length;
    this.control[FD] = fd;
    Atomics.store(this.control, STATE, POSTED);
    Atomics.notify(this.control, STATE);
    return { finish: () => this.settle(() => this.claimOrWait(fd, bytes.length)) };
  }

  /** Stops the thread (a write under way is finished by its `finish()`). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    // Only between writes: a POSTED write is claimed by finish(), never dropped.
    if (Atomics.compareExchange(this.control, STATE, IDLE, STOP) === IDLE)
      Atomics.notify(this.control, STATE);
    await worker.terminate();
  }

  private async settle(write: () => Promise<number>): Promise<number> {
    try {
      return await write();
    } finally {
      this.busy = false;
    }
  }

  private async claimOrWait(fd: number, length: number): Promise<number> {
    const c = this.control;
    if (Atomics.compareExchange(c, STATE, POSTED, STOLEN) === POSTED) {
      try {
        return writeAll(fd, this.data, length);
      } finally {
        Atomics.store(c, STATE, IDLE);
      }
    }
    // The thread is writing: blocked here, as a write made here would block, for as long as a
    // write normally takes; the event loop then runs nothing that would make the flashblock wait
    // for it once the write is done (a slice of a block's batch, a staging pass's reads).
    const until = performance.now() + BLOCKING_WAIT_MS;
    for (let s = Atomics.load(c, STATE); s === WRITING; s = Atomics.load(c, STATE)) {
      const left = until - performance.now();
      if (left <= 0) break;
      Atomics.wait(c, STATE, s, left);
    }
    // A stalled disk: waited for without blocking, so RPC is answered meanwhile. `waitAsync`
    // alone keeps no process alive: the thread is ref'd meanwhile.
    const worker = this.worker;
    worker?.ref();
    try {
      for (let s = Atomics.load(c, STATE); s === WRITING; s = Atomics.load(c, STATE)) {
        const w = waitAsync(c, STATE, s);
        if (w.async) await w.value;
      }
    } finally {
      worker?.unref();
    }
    const outcome = Atomics.load(c, STATE);
    const errno = c[ERRNO];
    const elapsedMs = c[ELAPSED_US] / 1000;
    Atomics.store(c, STATE, IDLE);
    if (outcome === FAILED) throw writeError(errno);
    return elapsedMs;
  }
}

/** Writes `length` bytes of `bytes` to `fd`; returns how long it took (ms). */
function writeAll(fd: number, bytes: Uint8Array, length: number): number {
  const from = performance.now();
  for (let at = 0; at < length; ) at += writeSync(fd, bytes, at, length - at);
  return performance.now() - from;
}

function writeError(errno: number): Error {
  let code = 'EIO';
  try {
    code = getSystemErrorName(errno);
  } catch {
    // not an errno Node knows
  }
  return Object.assign(new Error(`${code}: flashblock journal write failed`), { code, errno });
}
