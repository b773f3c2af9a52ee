/**
 * Sender recovery on a worker thread: the native secp256k1 recovery (~105 µs each here) was the
 * largest single cost of the event loop at 1,000 submissions/s (12% of it), and the node's
 * second core had time to spare. Jobs and results pass through a SharedArrayBuffer ring, not
 * postMessage, whose round trip kept most of the recovery's cost on the event loop
 * (docs/decisions/0035-sender-recovery-worker-shared-ring.md).
 *
 *   recoverPublicKey ─> slot (hash, r, s, recovery id) ─> head++ ─> Atomics.notify
 *   worker: Atomics.wait(head) ─> ecdsaRecover each new slot ─> tail++ (notified every 8, and at the end)
 *   event loop: Atomics.waitAsync(tail) ─> resolve the finished jobs, oldest first
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

/** Recovers a signer's 64-byte public key (no 0x04 prefix) from a signing hash and signature. */
export interface SenderRecovery {
  recoverPublicKey(msgHash: Uint8Array, recovery: 0 | 1, r: Uint8Array, s: Uint8Array): Promise<Uint8Array>;
}

/** Jobs in flight at most (a power of two: slots are counters masked); more wait in memory. */
const SLOTS = 1024;
/** Per slot: signing hash 32, r 32, s 32, recovery id 1. */
const IN = 97;
/** Per slot: status (1 recovered) then the 64-byte public key. */
const OUT = 65;
/**
 * Int32 indexes of the control words: jobs written (event loop), jobs done (worker), stop (event
 * loop), the worker's kernel thread id (worker, once started; -1 where there is none to read).
 */
const HEAD = 0;
const TAIL = 1;
const STOP = 2;
const TID = 3;
const CONTROL_BYTES = 16;
/** How long close() waits for the worker to return on its own before terminating it. */
const STOP_GRACE_MS = 5_000;

// CommonJS, evaluated as the worker's script: no file to resolve next to this one, whether it
// runs from the TypeScript sources (tests) or the build.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { buffer, slots } = workerData;
const control = new Int32Array(buffer, 0, 4);
let tid = -1;
try {
  tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()) || -1;
} catch {}
Atomics.store(control, ${TID}, tid);
Atomics.notify(control, ${TID});
const secp256k1 = require(workerData.secp256k1);
const input = new Uint8Array(buffer, ${CONTROL_BYTES}, slots * ${IN});
const output = new Uint8Array(buffer, ${CONTROL_BYTES} + slots * ${IN}, slots * ${OUT});
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
    const i = slot * ${IN};
    const o = slot * ${OUT};
    try {
      const key = secp256k1.ecdsaRecover(input.subarray(i + 32, i + 96), input[i + 96], input.subarray(i, i + 32), false);
      output.set(key.subarray(1), o + 1);
      output[o] = 1;
    } catch {
      output[o] = 0;
    }
    tail = (tail + 1) | 0;
    if ((tail & 7) === 0) {
      Atomics.store(control, ${TAIL}, tail);
      Atomics.notify(control, ${TAIL});
    }
  }
  Atomics.store(control, ${TAIL}, tail);
  Atomics.notify(control, ${TAIL});
}
`;

interface Job {
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

  private constructor() {
    const buffer = new SharedArrayBuffer(CONTROL_BYTES + SLOTS * (IN + OUT));
    this.control = new Int32Array(buffer, 0, 4);
    this.input = new Uint8Array(buffer, CONTROL_BYTES, SLOTS * IN);
    this.output = new Uint8Array(buffer, CONTROL_BYTES + SLOTS * IN, SLOTS * OUT);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { buffer, slots: SLOTS, secp256k1: createRequire(import.meta.url).resolve('secp256k1') },
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
    return new Promise((resolve, reject) => {
      const job = { msgHash, recovery, r, s, resolve, reject };
      if (this.inRing.length < SLOTS && !this.waiting.length) this.write(job);
      else this.waiting.push(job);
      this.watch();
    });
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
      if (this.output[o] === 1) job.resolve(this.output.slice(o + 1, o + OUT));
      else settleInline(job);
    }
    while (this.waiting.length && this.inRing.length < SLOTS) this.write(this.waiting.shift()!);
    this.watch();
  }

  /** The worker is gone: what it had not finished, and everything after, runs here. */
  private fallBack(): void {
    if (!this.worker) return;
    this.worker = undefined;
    for (const job of this.inRing.splice(0)) settleInline(job);
    for (const job of this.waiting.splice(0)) settleInline(job);
  }
}

function inline(job: Pick<Job, 'msgHash' | 'recovery' | 'r' | 's'>): Uint8Array {
  return nativeEcrecover(job.msgHash, BigInt(job.recovery), job.r, job.s);
}

function settleInline(job: Job): void {
  try {
    job.resolve(inline(job));
  } catch (e) {
    job.reject(e);
  }
}
