/**
 * The flashblock journal's writer: a worker thread with the journal's own file descriptors, so a
 * stalled disk stops that thread, never the event loop that reads requests. Before it, each
 * append was a synchronous O_DSYNC write on the event loop (fast as a rule, 1.2 ms p50, but a
 * write behind a LevelDB compaction or another process's flush held the loop for as long as the
 * disk took: decision 0210, measured in docs/perf/2026-11-27-storage.md).
 *
 *   event loop: write(op) ─> seq, postMessage ─> promise (settles on the worker's answer)
 *   worker: a message ─> takes every message waiting (receiveMessageOnPort) ─> consecutive
 *           appends to one file in ONE write (group commit) ─> answers [seq, error?] per op
 *
 * The segment files are opened O_DSYNC: a write returns once its bytes are on disk, so an answer
 * means durable; it says where the bytes went (segment and offset: a sealed block's body is its
 * records there, decision 0521). Operations run in the order they were asked: a later record never
 * lands before an earlier one. A failed write's partial bytes are cut off (or, if that fails too,
 * the next append starts a new segment), so records always follow whole ones. The worker is
 * stopped by asking it (close), which closes the file.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { workerLimits } from '../workerLimits.js';

/** One operation on the journal's segment being written. */
export type JournalOp =
  | { op: 'append'; bytes: Uint8Array }
  /** The next segment: appends go to a new file from here on. */
  | { op: 'roll' };

/** Where an operation's bytes went: segment `seg`, from byte `at`. */
export interface Written {
  seg: number;
  at: number;
}

type Answer = { seq: number; error?: string; seg?: number; at?: number };

// CommonJS, evaluated as the worker's script: nothing to resolve next to this file, whether it
// runs from the TypeScript sources (tests) or the build.
const WORKER_SOURCE = `
const fs = require('node:fs');
const path = require('node:path');
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { port, dir, first } = workerData;
const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_DSYNC;
const name = (n) => path.join(dir, String(n).padStart(6, '0') + '.journal');
let fd;
let seg;
// The segment's length: where the next append lands.
let pos = 0;
// A failed write whose bytes could not be cut off: the next append starts a new segment.
let broken = false;
function openSegment(n) {
  const f = fs.openSync(name(n), flags);
  if (fd !== undefined) fs.closeSync(fd);
  fd = f;
  seg = n;
  pos = fs.fstatSync(fd).size;
  broken = false;
  // The new file's name on disk too (a power loss would otherwise lose the whole file).
  try {
    const d = fs.openSync(dir, 'r');
    try { fs.fsyncSync(d); } finally { fs.closeSync(d); }
  } catch {}
}
try {
  openSegment(first);
  // This thread's id in the kernel (Linux), so that the CLI leaves its priority alone.
  let tid;
  try {
    tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  } catch {}
  port.postMessage({ opened: true, tid });
} catch (e) {
  port.postMessage({ opened: false, error: e.message });
  port.close();
}
function writeAll(bytes) {
  for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
}
function run(ops) {
  const answers = [];
  for (let i = 0; i < ops.length; ) {
    const o = ops[i];
    if (o.op === 'close') {
      fs.closeSync(fd);
      answers.push({ seq: o.seq });
      port.postMessage(answers);
      port.close();
      return false;
    }
    // Group commit: the appends that wait together go in one write.
    let j = i + 1;
    if (o.op === 'append') while (j < ops.length && ops[j].op === 'append') j++;
    let len = 0;
    for (let k = i; k < j; k++) if (ops[k].op === 'append') len += ops[k].bytes.length;
    let error;
    let at = 0;
    try {
      if (o.op === 'roll' || broken) openSegment(seg + 1);
      at = pos;
      if (o.op === 'append') {
        writeAll(j - i === 1 ? o.bytes : Buffer.concat(ops.slice(i, j).map((x) => x.bytes)));
        pos += len;
      }
    } catch (e) {
      error = e.message;
      // What a failed write left goes: the records after it must follow the last whole one.
      try {
        fs.ftruncateSync(fd, pos);
      } catch {
        broken = true;
      }
    }
    for (let k = i; k < j; k++) {
      if (error) answers.push({ seq: ops[k].seq, error });
      else {
        answers.push({ seq: ops[k].seq, seg, at });
        if (ops[k].op === 'append') at += ops[k].bytes.length;
      }
    }
    i = j;
  }
  port.postMessage(answers);
  return true;
}
if (fd !== undefined) port.on('message', (message) => {
  const ops = [message];
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) ops.push(m.message);
  run(ops);
});
`;

/** Asks the worker; every promise settles with the worker's answer, in the order asked. */
export class JournalWriter {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (w: Written) => void; reject: (e: Error) => void }>();
  /** Set once the worker is gone or a close was asked: later operations fail at once. */
  private gone?: Error;

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    /** The writer's kernel thread id (Linux), undefined elsewhere. */
    readonly threadId: number | undefined,
  ) {
    port.on('message', (answers: Answer[]) => {
      for (const a of answers) {
        const w = this.waiting.get(a.seq);
        if (!w) continue;
        this.waiting.delete(a.seq);
        if (a.error) w.reject(new Error(`flashblock journal write failed: ${a.error}`));
        else w.resolve({ seg: a.seg ?? 0, at: a.at ?? 0 });
      }
      this.refWhileWaiting();
    });
    worker.on('error', (e) =>
      this.fail(new Error(`flashblock journal writer failed: ${e.message}`, { cause: e })),
    );
    worker.on('exit', () => this.fail(new Error('flashblock journal is closed')));
    this.refWhileWaiting();
  }

  /**
   * Starts the worker, appending to segment `first` of the folder `dir` (created if missing);
   * rejects if it cannot be opened.
   */
  static async start(dir: string, first: number): Promise<JournalWriter> {
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { port: port2, dir, first },
      transferList: [port2],
      // The worker holds a few buffers at a time.
      resourceLimits: workerLimits({ maxOldGenerationSizeMb: 32 }),
    });
    const opened = await new Promise<{ opened: boolean; tid?: number; error?: string }>((resolve, reject) => {
      port1.once('message', resolve);
      worker.once('error', reject);
    });
    if (!opened.opened) {
      await worker.terminate();
      port1.close();
      throw new Error(`cannot open the flashblock journal: ${opened.error}`);
    }
    return new JournalWriter(worker, port1, opened.tid);
  }

  /** Settles once `op` is on disk, with where it went (rejects if its write failed). */
  write(op: JournalOp): Promise<Written> {
    if (this.gone) return Promise.reject(this.gone);
    const seq = ++this.seq;
    const done = new Promise<Written>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    this.port.postMessage({ ...op, seq });
    this.refWhileWaiting();
    return done;
  }

  /** Waits for every operation asked so far, closes the files and stops the worker. */
  async close(): Promise<void> {
    if (this.gone) return;
    const seq = ++this.seq;
    const done = new Promise<Written>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    this.port.postMessage({ op: 'close', seq });
    this.refWhileWaiting();
    this.gone = new Error('flashblock journal is closed');
    await done.catch(() => {});
    await this.worker.terminate().catch(() => {});
    this.port.close();
  }

  /** The worker keeps the process alive only while an answer is awaited. */
  private refWhileWaiting(): void {
    if (this.waiting.size) {
      this.port.ref();
      this.worker.ref();
    } else {
      this.port.unref();
      this.worker.unref();
    }
  }

  private fail(e: Error): void {
    this.gone ??= e;
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
  }
}
