/**
 * A connection a front thread accepted, as the main thread's Node HTTP server sees it: a Duplex
 * whose bytes cross a MessagePort (frontProtocol.ts) to the real socket in the worker. Node's
 * server takes any Duplex as a connection (its documented 'connection' event), and so does ws
 * for an upgrade. Writes complete when the worker's socket has taken them, so `writableLength`
 * (and a WebSocket's bufferedAmount) counts what the client has not been sent yet, as with a
 * socket of the main thread; reads stop in the worker while this side is paused or full.
 */
import { Duplex } from 'node:stream';
import type { ToWorker } from './frontProtocol.js';

export class TunnelSocket extends Duplex {
  readonly remoteAddress?: string;
  readonly remotePort?: number;
  readonly remoteFamily?: string;
  /** The worker was asked to stop reading. */
  private remotePaused = false;
  /** The worker's socket has closed. */
  private remoteClosed = false;
  private readonly writes: (() => void)[] = [];
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

  /** `n` bytes of the oldest write went out. */
  sent(): void {
    this.writes.shift()?.();
  }

  override _read(): void {
    if (!this.remotePaused) return;
    this.remotePaused = false;
    this.post({ t: 'resume', id: this.id });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.touch();
    const copy = new Uint8Array(chunk);
    this.writes.push(() => cb());
    this.post({ t: 'write', id: this.id, chunk: copy }, [copy.buffer as ArrayBuffer]);
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.post({ t: 'end', id: this.id });
    cb();
  }

  override _destroy(e: Error | null, cb: (e?: Error | null) => void): void {
    clearTimeout(this.timer);
    if (!this.remoteClosed) this.post({ t: 'destroy', id: this.id });
    // Writes the worker will never confirm.
    for (const w of this.writes.splice(0)) w();
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
