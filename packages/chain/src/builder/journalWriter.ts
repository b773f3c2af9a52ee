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
 * The files are opened O_DSYNC: a write returns once its bytes are on disk, so an answer means
 * durable. Operations run in the order they were asked: a later record never lands before an
 * earlier one. The worker is stopped by asking it (close), which closes the files.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';

/** One operation on file `file` (an index into the journal's files). */
export type JournalOp =
  | { op: 'truncate'; file: number; bytes: Uint8Array }
  | { op: 'append'; file: number; bytes: Uint8Array }
  /** Every file emptied and synced. */
  | { op: 'reset' };

type Answer = { seq: number; error?: string };

// CommonJS, evaluated as the worker's script: nothing to resolve next to this file, whether it
// runs from the TypeScript sources (tests) or the build.
const WORKER_SOURCE = `
const fs = require('node:fs');
const { workerData, receiveMessageOnPort } = require('node:worker_threads');
const { port, names } = workerData;
const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_DSYNC;
let fds;
try {
  fds = names.map((n) => fs.openSync(n, flags));
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
function writeAll(fd, bytes) {
  for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at);
}
function run(ops) {
  const answers = [];
  for (let i = 0; i < ops.length; ) {
    const o = ops[i];
    if (o.op === 'close') {
      for (const fd of fds) fs.closeSync(fd);
      answers.push({ seq: o.seq });
      port.postMessage(answers);
      port.close();
      return false;
    }
    // Group commit: the appends to one file that wait together go in one write.
    let j = i + 1;
    if (o.op === 'append') while (j < ops.length && ops[j].op === 'append' && ops[j].file === o.file) j++;
    let error;
    try {
      if (o.op === 'reset') {
        for (const fd of fds) {
          fs.ftruncateSync(fd, 0);
          fs.fdatasyncSync(fd);
        }
      } else if (o.op === 'truncate') {
        fs.ftruncateSync(fds[o.file], 0);
        writeAll(fds[o.file], o.bytes);
      } else {
        writeAll(fds[o.file], j - i === 1 ? o.bytes : Buffer.concat(ops.slice(i, j).map((x) => x.bytes)));
      }
    } catch (e) {
      error = e.message;
    }
    for (let k = i; k < j; k++) answers.push(error ? { seq: ops[k].seq, error } : { seq: ops[k].seq });
    i = j;
  }
  port.postMessage(answers);
  return true;
}
if (fds) port.on('message', (first) => {
  const ops = [first];
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) ops.push(m.message);
  run(ops);
});
`;

/** Asks the worker; every promise settles with the worker's answer, in the order asked. */
export class JournalWriter {
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
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
        else w.resolve();
      }
      this.refWhileWaiting();
    });
    worker.on('error', (e) =>
      this.fail(new Error(`flashblock journal writer failed: ${e.message}`, { cause: e })),
    );
    worker.on('exit', () => this.fail(new Error('flashblock journal is closed')));
    this.refWhileWaiting();
  }

  /** Starts the worker on the files `names` (created if missing); rejects if one cannot be opened. */
  static async start(names: string[]): Promise<JournalWriter> {
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { port: port2, names },
      transferList: [port2],
      // The worker holds a few buffers at a time.
      resourceLimits: { maxOldGenerationSizeMb: 32 },
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

  /** Settles once `op` is on disk (rejects if its write failed). */
  write(op: JournalOp): Promise<void> {
    if (this.gone) return Promise.reject(this.gone);
    const seq = ++this.seq;
    const done = new Promise<void>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
    this.port.postMessage({ ...op, seq });
    this.refWhileWaiting();
    return done;
  }

  /** Waits for every operation asked so far, closes the files and stops the worker. */
  async close(): Promise<void> {
    if (this.gone) return;
    const seq = ++this.seq;
    const done = new Promise<void>((resolve, reject) => this.waiting.set(seq, { resolve, reject }));
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
