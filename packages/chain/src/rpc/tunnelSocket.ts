/**
 * A connection a front thread accepted, as the main thread's Node HTTP server sees it: a Duplex
 * whose bytes cross a MessagePort (frontProtocol.ts) to the real socket in the worker. Node's
 * server takes any Duplex as a connection (its documented 'connection' event), and so does ws
 * for an upgrade. Up to WINDOW bytes may be on their way or waiting in the worker's socket;
 * past that, writes complete only as the worker's socket takes them, so `writableLength` (and a
 * WebSocket's bufferedAmount) grows when the client stops reading, as with a socket of the main
 * thread. Reads stop in the worker while this side is paused or full.
 */
import { Duplex } from 'node:stream';
import type { ToWorker } from './frontProtocol.js';

/**
 * Bytes written and not yet confirmed by the worker before writes wait for its confirmations:
 * about what a loopback socket's kernel buffer takes, so that a burst (a flashblock pushed to a
 * thousand subscriptions) waits here no more than it would in a socket of the main thread.
 */
const WINDOW = 4 * 1024 * 1024;

export class TunnelSocket extends Duplex {
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  readonly remoteFamily?: string;
  /** The worker was asked to stop reading. */
  private remotePaused = false;
  /** The worker's socket has closed. */
  private remoteClosed = false;
  /** Sizes of the writes the worker has not confirmed, oldest first; their sum. */
  private readonly unconfirmed: number[] = [];
  private inFlight = 0;
  /** The callback of the write that waits for confirmations. */
  private waiting?: () => void;
  /** Written this turn, not yet sent to the worker. */
  private outgoing: Buffer[] = [];
  private flushing = false;
  private timeoutMs = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    readonly id: number,
    private readonly post: (m: ToWorker, transfer?: ArrayBuffer[]) => void,
    info: { remoteAddress?: string; remotePort?: number; remoteFamily?: string },
  ) {
    // As a socket of Node's HTTP server (allowHalfOpen there): the server ends it after answering.
    super({ allowHalfOpen: true });
    this.remoteAddress = info.remoteAddress;
    this.remotePort = info.remotePort;
    this.remoteFamily = info.remoteFamily;
  }

  /** Bytes the worker read from the client. */
  incoming(chunk: Uint8Array): void {
    this.touch();
    const more = this.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (!more && !this.remotePaused) {
      this.remotePaused = true;
      this.post({ t: 'pause', id: this.id });
    }
  }

  /** The client finished sending. */
  remoteEnd(): void {
    this.push(null);
  }

  /** The worker's socket closed. */
  remoteClose(): void {
    this.remoteClosed = true;
    this.destroy();
  }

  /** The oldest unconfirmed write went out. */
  sent(): void {
    this.inFlight -= this.unconfirmed.shift() ?? 0;
    if (this.waiting && this.inFlight <= WINDOW) this.release();
  }

  private release(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  override _read(): void {
    if (!this.remotePaused) return;
    this.remotePaused = false;
    this.post({ t: 'resume', id: this.id });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.queue([chunk], cb);
  }

  /** What piled up while a write waited: one message. */
  override _writev(chunks: { chunk: Buffer }[], cb: (e?: Error | null) => void): void {
    this.queue(
      chunks.map((c) => c.chunk),
      cb,
    );
  }

  /** Chunks written in one turn go to the worker as one message (a WebSocket frame is two). */
  private queue(chunks: Buffer[], cb: (e?: Error | null) => void): void {
    this.touch();
    for (const c of chunks) {
      this.outgoing.push(c);
      this.inFlight += c.length;
    }
    if (!this.flushing) {
      this.flushing = true;
      process.nextTick(this.flush);
    }
    if (this.inFlight <= WINDOW) cb();
    else this.waiting = () => cb();
  }

  private readonly flush = (): void => {
    this.flushing = false;
    if (this.outgoing.length === 0 || this.destroyed) return;
    const all = Buffer.concat(this.outgoing);
    this.outgoing = [];
    // An exact-size copy, transferred.
    const copy = new Uint8Array(all);
    this.unconfirmed.push(copy.byteLength);
    this.post({ t: 'write', id: this.id, chunk: copy }, [copy.buffer as ArrayBuffer]);
  };

  override _final(cb: (e?: Error | null) => void): void {
    this.flush();
    this.post({ t: 'end', id: this.id });
    cb();
  }

  override _destroy(e: Error | null, cb: (e?: Error | null) => void): void {
    clearTimeout(this.timer);
    if (!this.remoteClosed) this.post({ t: 'destroy', id: this.id });
    // A write the worker will never confirm.
    this.release();
    cb(e);
  }

  /** As net.Socket's: 'timeout' after `ms` without reads or writes (0: never). */
  setTimeout(ms: number, cb?: () => void): this {
    this.timeoutMs = ms;
    if (cb) this.once('timeout', cb);
    this.touch();
    return this;
  }

  private touch(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.timeoutMs > 0 && !this.destroyed)
      this.timer = setTimeout(() => this.emit('timeout'), this.timeoutMs).unref();
  }

  /** Set in the worker (every connection there has no Nagle delay). */
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  /** net.Socket's name for what waits to be written. */
  get bufferSize(): number {
    return this.writableLength;
  }
}
