/**
 * Sender recovery on a worker thread: the native secp256k1 recovery (~105 µs each here) was the
 * largest single cost of the event loop at 1,000 submissions/s (12% of it), and the node's
 * second core had time to spare. Jobs and results pass through a SharedArrayBuffer ring, not
 * postMessage, whose round trip kept most of the recovery's cost on the event loop
 * (docs/decisions/0035-sender-recovery-worker-shared-ring.md).
 *
 *   recoverPublicKey ─> slot (hash, r, s, recovery id), claim word WRITTEN ─> head++ ─> Atomics.notify
 *   worker: Atomics.wait(head) ─> each new slot: claim it (WRITTEN -> WORKER), ecdsaRecover ─> tail++
 *           (stored after every job, notified every 8 and at the end)
 *   event loop: Atomics.waitAsync(tail) ─> resolve the finished jobs, oldest first
 *
 * A caller about to wait for a job (`expedite`) lets the event loop recover it itself when the
 * worker still has earlier jobs to do once the loop has run what was ready: it claims the slot
 * (WRITTEN -> STOLEN) and the worker, finding it claimed, passes over it. So a burst of a batch's
 * recoveries uses the event loop's idle time too, not only the worker's core
 * (docs/decisions/0450-the-event-loop-recovers-when-it-would-wait.md).
 *
 * A job that fails in the worker is recovered again on the event loop, for the library's own
 * error; if the worker dies, every job left (and every later one) is recovered there too.
 *
 * The worker is stopped by asking it (the stop word), not by `terminate()`: terminating it while
 * it loads the addon or runs a native call makes node-addon-api throw a C++ exception nobody
 * catches, and the whole process aborts ("terminate called after throwing an instance of
 * 'Napi::Error'"; docs/decisions/0044-recovery-worker-asked-to-stop.md).
 */
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { nativeEcrecover } from '../crypto/ecrecover.js';
import { workerLimits } from '../workerLimits.js';

/** Recovers a signer's 64-byte public key (no 0x04 prefix) from a signing hash and signature. */
export interface SenderRecovery {
  recoverPublicKey(msgHash: Uint8Array, recovery: 0 | 1, r: Uint8Array, s: Uint8Array): Promise<Uint8Array>;
  /** The caller is about to wait for `pending` (from recoverPublicKey): hurry it if it can. */
  expedite?(pending: Promise<Uint8Array>): void;
}

/** Jobs in flight at most (a power of two: slots are counters masked); more wait in memory. */
const SLOTS = 1024;
/** Per slot: signing hash 32, r 32, s 32, recovery id 1. */
const IN = 97;
/** Per slot: status (1 recovered) then the 64-byte public key. */
const OUT = 65;
/** A slot's claim word: written by the event loop, taken by the worker, or taken back (stolen). */
const WRITTEN = 1;
const WORKER = 2;
const STOLEN = 3;
/**
 * Int32 indexes of the control words: jobs written (event loop), jobs done (worker), stop (event
 * loop), the worker's kernel thread id (worker, once started; -1 where there is none to read).
 */
const HEAD = 0;
const TAIL = 1;
const STOP = 2;
const TID = 3;
const CONTROL_BYTES = 16;
/** The claim words, one int32 per slot, after the control words. */
const CLAIM_BYTES = SLOTS * 4;
/** How long close() waits for the worker to return on its own before terminating it. */
const STOP_GRACE_MS = 5_000;

// CommonJS, evaluated as the worker's script: no file to resolve next to this one, whether it
// runs from the TypeScript sources (tests) or the build.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { buffer, slots } = workerData;
const control = new Int32Array(buffer, 0, 4);
const claims = new Int32Array(buffer, ${CONTROL_BYTES}, slots);
let tid = -1;
try {
  tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()) || -1;
} catch {}
Atomics.store(control, ${TID}, tid);
Atomics.notify(control, ${TID});
const secp256k1 = require(workerData.secp256k1);
const input = new Uint8Array(buffer, ${CONTROL_BYTES + CLAIM_BYTES}, slots * ${IN});
const output = new Uint8Array(buffer, ${CONTROL_BYTES + CLAIM_BYTES} + slots * ${IN}, slots * ${OUT});
let tail = 0;
for (;;) {
  if (Atomics.load(control, ${STOP})) break;
  const head = Atomics.load(control, ${HEAD});
  if (head === tail) {
    Atomics.wait(control, ${HEAD}, head);
    continue;
  }
  while (tail !== head) {
    const slot = tail & (slots - 1);
    // The event loop may have taken this job back (expedite): then it is settled already.
    if (Atomics.compareExchange(claims, slot, ${WRITTEN}, ${WORKER}) === ${WRITTEN}) {
      const i = slot * ${IN};
      const o = slot * ${OUT};
      try {
        const key = secp256k1.ecdsaRecover(input.subarray(i + 32, i + 96), input[i + 96], input.subarray(i, i + 32), false);
        output.set(key.subarray(1), o + 1);
        output[o] = 1;
      } catch {
        output[o] = 0;
      }
    }
    tail = (tail + 1) | 0;
    // Stored after every job (how far the worker is, for expedite); a wake-up every 8 only.
    Atomics.store(control, ${TAIL}, tail);
    if ((tail & 7) === 0) Atomics.notify(control, ${TAIL});
  }
  Atomics.store(control, ${TAIL}, tail);
  Atomics.notify(control, ${TAIL});
}
`;

interface Job {
  /** Its place in the ring (the value of `head` it was written at); -1 until written. */
  seq: number;
  /** Settled: its promise has its outcome (resolved by `collect`, by a steal, or inline). */
  settled: boolean;
  /** Recovered on the event loop (expedite): the worker passed over its slot. */
  stolen: boolean;
  msgHash: Uint8Array;
  recovery: 0 | 1;
  r: Uint8Array;
  s: Uint8Array;
  resolve: (key: Uint8Array) => void;
  reject: (e: unknown) => void;
}

/** ES2024's Atomics.waitAsync (Node 16+), not in the ES2023 library types. */
type WaitAsync = (
  a: Int32Array,
  index: number,
  value: number,
  timeout?: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };

export class RecoveryThread implements SenderRecovery {
  private readonly control: Int32Array;
  private readonly claims: Int32Array;
  private readonly input: Uint8Array;
  private readonly output: Uint8Array;
  private worker?: Worker;
  /** Jobs written to the ring (`head`) and read back (`seen`), as the ring's int32 counters. */
  private head = 0;
  private seen = 0;
  /** In the ring, oldest first; then those waiting for a free slot. */
  private readonly inRing: Job[] = [];
  private readonly waiting: Job[] = [];
  private watching = false;
  /** A wake-up of the worker is due at the end of this turn (one for every job written in it). */
  private waking = false;
  /** The job behind each promise `recoverPublicKey` returned, for `expedite`. */
  private readonly jobs = new WeakMap<Promise<Uint8Array>, Job>();
  /** Jobs a caller waits for, to take back at the end of this turn's check phase if still queued. */
  private readonly expedited: Job[] = [];
  /** Jobs recovered on the event loop (expedite), since start: for tests and measurements. */
  stolen = 0;

  private constructor() {
    const buffer = new SharedArrayBuffer(CONTROL_BYTES + CLAIM_BYTES + SLOTS * (IN + OUT));
    this.control = new Int32Array(buffer, 0, 4);
    this.claims = new Int32Array(buffer, CONTROL_BYTES, SLOTS);
    this.input = new Uint8Array(buffer, CONTROL_BYTES + CLAIM_BYTES, SLOTS * IN);
    this.output = new Uint8Array(buffer, CONTROL_BYTES + CLAIM_BYTES + SLOTS * IN, SLOTS * OUT);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { buffer, slots: SLOTS, secp256k1: createRequire(import.meta.url).resolve('secp256k1') },
      resourceLimits: workerLimits(),
    });
    // It keeps the process alive only while it has jobs (Atomics.waitAsync does not: a node
    // recovering its journaled transactions at start-up would exit with them unsettled).
    worker.unref();
    const fail = () => this.fallBack();
    worker.on('error', fail);
    worker.on('exit', fail);
    this.worker = worker;
  }

  /** Starts the worker (its first jobs wait in the ring while it loads). */
  static start(): RecoveryThread {
    return new RecoveryThread();
  }

  recoverPublicKey(msgHash: Uint8Array, recovery: 0 | 1, r: Uint8Array, s: Uint8Array): Promise<Uint8Array> {
    if (!this.worker) return Promise.resolve().then(() => inline({ msgHash, recovery, r, s }));
    let job: Job | undefined;
    const promise = new Promise<Uint8Array>((resolve, reject) => {
      job = { seq: -1, settled: false, stolen: false, msgHash, recovery, r, s, resolve, reject };
    });
    const j = job!; // the executor above ran synchronously
    this.jobs.set(promise, j);
    if (this.inRing.length < SLOTS && !this.waiting.length) this.write(j);
    else this.waiting.push(j);
    this.watch();
    return promise;
  }

  /**
   * The caller is about to wait for `pending` (a promise `recoverPublicKey` returned). If, once
   * the event loop has run what was ready in this turn (its check phase), the worker still has
   * earlier jobs before this one, the event loop recovers it itself: it would otherwise wait
   * idle. A job the worker is at (or has done) is left to it; so is one that is not this
   * thread's. Costs one recovery (~70 µs) on the event loop each time it takes one.
   */
  expedite(pending: Promise<Uint8Array>): void {
    const job = this.jobs.get(pending);
    if (!job || job.settled || !this.worker) return;
    this.expedited.push(job);
    if (this.expedited.length === 1) setImmediate(() => this.takeBack());
  }

  /** expedite's check: takes back each waited-for job the worker has not reached. */
  private takeBack(): void {
    const jobs = this.expedited.splice(0);
    for (const job of jobs) {
      if (job.settled || job.seq < 0 || !this.worker) continue;
      // Jobs the worker has still to finish before this one (it stores its tail after each).
      const ahead = (job.seq - Atomics.load(this.control, TAIL)) | 0;
      if (ahead < 1) continue;
      const slot = job.seq & (SLOTS - 1);
      if (Atomics.compareExchange(this.claims, slot, WRITTEN, STOLEN) !== WRITTEN) continue;
      job.stolen = true;
      this.stolen++;
      settleInline(job);
    }
  }

  /**
   * The worker's kernel thread id (Linux), once it has started; undefined elsewhere, or if it has
   * not started within `timeoutMs`. The CLI keeps this thread at the main thread's priority: a
   * submission waits for it (decision 0342).
   */
  async threadId(timeoutMs = 5_000): Promise<number | undefined> {
    if (Atomics.load(this.control, TID) === 0) {
      const wait = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(
        this.control,
        TID,
        0,
        timeoutMs,
      );
      if (wait.async) await wait.value;
    }
    const tid = Atomics.load(this.control, TID);
    return tid > 0 ? tid : undefined;
  }

  /** Stops the worker; jobs still in flight are recovered on the event loop. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    worker.ref(); // the process stays up until it has gone
    this.fallBack();
    // Stop, then move `head` so that a worker about to wait for it returns at once and sees the
    // stop (the ring is not read again: every job was settled just above).
    Atomics.store(this.control, STOP, 1);
    Atomics.store(this.control, HEAD, (this.head + 1) | 0);
    Atomics.notify(this.control, HEAD);
    try {
      await once(worker, 'exit', { signal: AbortSignal.timeout(STOP_GRACE_MS) });
    } catch {
      await worker.terminate(); // still running after the grace period (or it failed)
    }
  }

  private write(job: Job): void {
    const slot = this.head & (SLOTS - 1);
    const i = slot * IN;
    const input = this.input;
    // r and s are minimal big-endian (RLP): right-aligned in their 32 bytes.
    input.fill(0, i + 32, i + 96);
    input.set(job.msgHash, i);
    input.set(job.r, i + 64 - job.r.length);
    input.set(job.s, i + 96 - job.s.length);
    input[i + 96] = job.recovery;
    job.seq = this.head;
    Atomics.store(this.claims, slot, WRITTEN);
    this.inRing.push(job);
    this.head = (this.head + 1) | 0;
    Atomics.store(this.control, HEAD, this.head);
    // One wake-up for the jobs of a turn (a batch's are written together): each notify of a
    // sleeping worker is a system call on this thread.
    if (this.waking) return;
    this.waking = true;
    queueMicrotask(() => {
      this.waking = false;
      Atomics.notify(this.control, HEAD);
    });
  }

  /** Waits (without blocking) for the worker to move `tail` past what has been read. */
  private watch(): void {
    if (!this.worker || this.watching) return;
    if (!this.inRing.length) {
      this.worker.unref();
      return;
    }
    this.watching = true;
    this.worker.ref();
    const wait = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(this.control, TAIL, this.seen);
    const next = () => {
      this.watching = false;
      this.collect();
    };
    if (wait.async) wait.value.then(next);
    else queueMicrotask(next);
  }

  private collect(): void {
    if (!this.worker) return;
    const tail = Atomics.load(this.control, TAIL);
    while (this.seen !== tail) {
      const job = this.inRing.shift();
      if (!job) break;
      const o = (this.seen & (SLOTS - 1)) * OUT;
      this.seen = (this.seen + 1) | 0;
      if (job.stolen) continue; // settled by takeBack; the worker passed over its slot
      if (this.output[o] === 1) settle(job, this.output.slice(o + 1, o + OUT));
      else settleInline(job);
    }
    while (this.waiting.length && this.inRing.length < SLOTS) this.write(this.waiting.shift()!);
    this.watch();
  }

  /** The worker is gone: what it had not finished, and everything after, runs here. */
  private fallBack(): void {
    if (!this.worker) return;
    this.worker = undefined;
    for (const job of this.inRing.splice(0)) if (!job.settled) settleInline(job);
    for (const job of this.waiting.splice(0)) settleInline(job);
  }
}

function inline(job: Pick<Job, 'msgHash' | 'recovery' | 'r' | 's'>): Uint8Array {
  return nativeEcrecover(job.msgHash, BigInt(job.recovery), job.r, job.s);
}

function settle(job: Job, key: Uint8Array): void {
  job.settled = true;
  job.resolve(key);
}

function settleInline(job: Job): void {
  job.settled = true;
  try {
    job.resolve(inline(job));
  } catch (e) {
    job.reject(e);
  }
}
