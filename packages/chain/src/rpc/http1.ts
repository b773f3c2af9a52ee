/**
 * The common request, answered without Node's HTTP server: an HTTP/1.1 `POST` with a
 * `Content-Length` body and nothing unusual in its head. Node's server costs ~15-20 µs of the
 * thread per request in its JavaScript (IncomingMessage, ServerResponse, header objects,
 * streams), three times what answering `eth_getBalance` costs; this front reads such requests
 * straight off the socket (docs/decisions/0240-a-lean-http-front-for-json-rpc.md).
 *
 * Anything else on a connection (another method, an upgrade to WebSocket, `Transfer-Encoding`,
 * `Expect`, `Connection: close`, HTTP/1.0, a head that is large, malformed or has characters
 * Node's parser refuses) is handed to Node's server at that request, with the bytes read so far,
 * once the answers before it have gone out: Node then does what it always did (400, 413, 415,
 * 431, the upgrade, ...). The protections of Node's server are kept here too: a request's head
 * and its whole must arrive within the header and request timeouts (HTTP 408), a connection
 * idle for the keep-alive timeout is closed, and the answers to pipelined requests go out in
 * order.
 */
import type { Socket } from 'node:net';
import { CORS_LINES } from './cors.js';

export interface Http1Options {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Bodies declared larger go to Node's server (which answers 413). */
  maxBody: number;
  /**
   * A complete request: `body` is its bytes; `reply` sends the answer (in order with the
   * connection's others; `undefined` body: 204 No Content). Called at most once per request.
   */
  onRequest(body: Buffer, client: string | undefined, reply: (status: number, body?: string) => void): void;
  /** The connection goes to Node's HTTP server; `rest` was read and not yet answered. */
  handOff(socket: Socket, rest: Buffer): void;
  /** After the connection paused for its unread answers: whether it may read again now. */
  mayResume(socket: Socket): boolean;
}

/** Node's default `maxHeaderSize`: a longer head is Node's to refuse (431). */
const MAX_HEAD = 16 * 1024;
/** Answers waiting in a socket's buffer at which it stops reading (its client is not reading). */
const MAX_UNSENT = 1024 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n');
/**
 * A head the fast path may take, checked in one pass: `POST <target> HTTP/1.1`, then header
 * lines whose names are tokens and whose values hold only what Node's parser takes (visible
 * ASCII, space, tab and obs-text). Any other head is Node's to answer.
 */
const HEAD = /^POST [\x21-\x7e]+ HTTP\/1\.1(?:\r\n[!#$%&'*+.^_`|~0-9A-Za-z-]+:[\t\x20-\x7e\x80-\xff]*)*$/;
const DIGITS = /^\d{1,10}$/;
const CONTENT_TYPE = /^application\/json|^application\/[a-z.+-]*json|^text\/plain/i;

const STATUS: Record<number, string> = {
  200: 'OK',
  204: 'No Content',
  500: 'Internal Server Error',
};

/** What follows an answer's Content-Length line, for one second and keep-alive timeout. */
let tailSecond = -1;
let tailKeepAlive = -1;
let tailText = '';
function headTail(now: number, keepAliveSeconds: number): string {
  const second = Math.floor(now / 1000);
  if (second !== tailSecond || keepAliveSeconds !== tailKeepAlive) {
    tailSecond = second;
    tailKeepAlive = keepAliveSeconds;
    tailText =
      `${CORS_LINES}Date: ${new Date(now).toUTCString()}\r\n` +
      `Connection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n\r\n`;
  }
  return tailText;
}

/** One fast-path answer: the status line and headers before `body` (`now`: Date.now()). */
export function responseHead(
  status: number,
  bodyBytes: number | undefined,
  keepAliveSeconds: number,
  now = Date.now(),
): string {
  const tail = headTail(now, keepAliveSeconds);
  if (status === 200 && bodyBytes !== undefined)
    return `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n${tail}`;
  const length =
    bodyBytes === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n`;
  return `HTTP/1.1 ${status} ${STATUS[status] ?? ''}\r\n${length}${tail}`;
}

/** `value` (from `from` to `to` of `head`) without the optional whitespace around it. */
function fieldValue(head: string, from: number, to: number): string {
  while (from < to && (head.charCodeAt(from) === 0x20 || head.charCodeAt(from) === 0x09)) from++;
  while (to > from && (head.charCodeAt(to - 1) === 0x20 || head.charCodeAt(to - 1) === 0x09)) to--;
  return head.slice(from, to);
}

/** What a request's head says, or undefined when it is not one for the fast path. */
export function parseHead(head: string): { length: number } | undefined {
  if (!HEAD.test(head)) return undefined;
  let length: number | undefined;
  let host = false;
  let lineEnd = head.indexOf('\r\n');
  while (lineEnd >= 0) {
    const start = lineEnd + 2;
    // The pattern above has made sure that every line has a name, a colon and a value.
    const colon = head.indexOf(':', start);
    lineEnd = head.indexOf('\r\n', colon);
    const end = lineEnd < 0 ? head.length : lineEnd;
    // Only the names below matter here: the others are not even lowercased.
    switch (colon - start) {
      case 4:
        if (head.slice(start, colon).toLowerCase() !== 'host') break;
        if (host) return undefined;
        host = true;
        break;
      case 6:
        if (head.slice(start, colon).toLowerCase() === 'expect') return undefined;
        break;
      case 7:
        if (head.slice(start, colon).toLowerCase() === 'upgrade') return undefined;
        break;
      case 10:
        if (head.slice(start, colon).toLowerCase() !== 'connection') break;
        if (fieldValue(head, colon + 1, end).toLowerCase() !== 'keep-alive') return undefined;
        break;
      case 12:
        if (head.slice(start, colon).toLowerCase() !== 'content-type') break;
        if (!CONTENT_TYPE.test(fieldValue(head, colon + 1, end))) return undefined;
        break;
      case 14: {
        if (head.slice(start, colon).toLowerCase() !== 'content-length') break;
        const value = fieldValue(head, colon + 1, end);
        if (length !== undefined || !DIGITS.test(value)) return undefined;
        length = Number(value);
        break;
      }
      case 17:
        if (head.slice(start, colon).toLowerCase() === 'transfer-encoding') return undefined;
        break;
    }
  }
  if (length === undefined || !host) return undefined;
  return { length };
}

/** A request answered or to be: its answer once ready (its head is written with the others). */
interface Slot {
  ready: boolean;
  status: number;
  text: string | undefined;
}

/** The fast-path connections, for the timeout sweep. */
export class Http1Front {
  private readonly live = new Set<Http1Connection>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    private readonly options: Http1Options,
    checkEveryMs: number,
  ) {
    this.sweep = setInterval(() => this.check(), checkEveryMs).unref();
  }

  /**
   * Serves `socket` until it closes or goes to Node's server. `shared`: the socket's bytes come
   * to the returned function, not as 'data' events, in this buffer, which the next read
   * overwrites (a socket made with Node's `onread` option: acceptIntoBuffer.ts); what is kept
   * past the call is copied. Once the connection is handed to Node's server, the function
   * drops what it is given: the caller routes the bytes there.
   */
  serve(socket: Socket, shared?: Buffer): (chunk: Buffer) => void {
    const c = new Http1Connection(socket, this.options, () => this.live.delete(c), shared);
    this.live.add(c);
    return c.read;
  }

  private check(): void {
    const now = Date.now();
    for (const c of this.live) c.check(now);
  }

  close(): void {
    clearInterval(this.sweep);
    for (const c of this.live) c.socket.destroy();
    this.live.clear();
  }
}

class Http1Connection {
  /** Bytes read and not yet answered: a partial request (or, handing off, what Node's server gets). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the partial request needs in all, once its head is read (0: head not complete). */
  private need = 0;
  /** Date.now() when the first byte of the partial request arrived (0: none). */
  private partialSince = 0;
  private lastActive = Date.now();
  private slots: Slot[] = [];
  private readonly keepAliveSeconds: number;
  /** A request Node's server must answer is next: no more are read here. */
  private handingOff = false;
  private pausedForWrites = false;
  /** The client has finished sending (half-close): the connection ends once answered. */
  private ended = false;
  private done = false;

  constructor(
    readonly socket: Socket,
    private readonly o: Http1Options,
    private readonly release: () => void,
    private readonly shared?: Buffer,
  ) {
    this.keepAliveSeconds = Math.floor(o.keepAliveTimeoutMs / 1000);
    if (!shared) socket.on('data', this.onData);
    socket.on('drain', this.onDrain);
    socket.on('end', this.onEnd);
    socket.on('error', this.onError);
    socket.once('close', () => this.finish());
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.release();
  }

  private readonly onError = (): void => {
    this.socket.destroy();
  };

  private readonly onEnd = (): void => {
    this.ended = true;
    // What was read and is waiting for Node's server cannot be handed over after the end.
    if (this.handingOff) this.socket.destroy();
    else if (this.slots.length === 0) this.socket.end();
  };

  /** Bytes read into the shared buffer: as a 'data' event, then what is kept is copied. */
  readonly read = (d: Buffer): void => {
    if (this.done) return;
    this.onData(d);
    const shared = this.shared?.buffer;
    for (let i = 0; i < this.pending.length; i++)
      if (this.pending[i].buffer === shared) this.pending[i] = Buffer.from(this.pending[i]);
  };

  private readonly onData = (d: Buffer): void => {
    this.lastActive = Date.now();
    if (this.partialSince === 0) this.partialSince = this.lastActive;
    this.pending.push(d);
    this.pendingBytes += d.length;
    if (this.handingOff) {
      // Node's server reads it once the answers before it are out; it refuses what is too big.
      if (this.pendingBytes > this.o.maxBody + MAX_HEAD) this.socket.destroy();
      return;
    }
    // A body arriving in pieces is joined once, when it is all here.
    if (this.pendingBytes < this.need) return;
    this.parse();
  };

  private parse(): void {
    const buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    let at = 0;
    let need = 0;
    while (at < buf.length) {
      const headEnd = buf.indexOf(CRLFCRLF, at);
      if (headEnd < 0 ? buf.length - at > MAX_HEAD : headEnd - at > MAX_HEAD) {
        this.startHandOff(buf, at);
        return;
      }
      if (headEnd < 0) break;
      const head = parseHead(buf.toString('latin1', at, headEnd));
      if (head === undefined || head.length > this.o.maxBody) {
        this.startHandOff(buf, at);
        return;
      }
      const end = headEnd + 4 + head.length;
      if (end > buf.length) {
        need = end - at;
        break;
      }
      this.request(buf.subarray(headEnd + 4, end));
      at = end;
    }
    this.need = need;
    if (at >= buf.length) {
      this.pending = [];
      this.pendingBytes = 0;
      this.partialSince = 0;
      return;
    }
    // The rest is the start of the next request, which began with this read.
    if (at > 0) this.partialSince = this.lastActive;
    // Copied: a view would keep the whole read's buffer alive.
    const rest = at > 0 ? Buffer.from(buf.subarray(at)) : buf;
    this.pending = [rest];
    this.pendingBytes = rest.length;
  }

  private request(body: Buffer): void {
    const slot: Slot = { ready: false, status: 0, text: undefined };
    this.slots.push(slot);
    this.o.onRequest(body, this.socket.remoteAddress, (status, text) => {
      if (slot.ready) return;
      slot.ready = true;
      slot.status = status;
      slot.text = text;
      this.flush();
    });
  }

  /** Writes the answers that are ready, in order, in one write. */
  private flush(): void {
    const slots = this.slots;
    let n = 0;
    while (n < slots.length && slots[n].ready) n++;
    if (n === 0) return;
    const now = Date.now();
    let out = '';
    for (let i = 0; i < n; i++) {
      const { status, text } = slots[i];
      out +=
        text === undefined
          ? responseHead(status, undefined, this.keepAliveSeconds, now)
          : responseHead(status, Buffer.byteLength(text), this.keepAliveSeconds, now) + text;
    }
    if (n === slots.length) this.slots = [];
    else slots.splice(0, n);
    this.lastActive = now;
    if (this.socket.destroyed || !this.socket.writable) return;
    this.socket.write(out);
    if (this.slots.length > 0) return;
    if (this.handingOff) this.handOff();
    else if (this.ended) this.socket.end();
    else if (this.socket.writableLength > MAX_UNSENT && !this.socket.isPaused()) {
      // The client is not reading its answers: it is not read either until they have gone.
      this.pausedForWrites = true;
      this.socket.pause();
    }
  }

  private readonly onDrain = (): void => {
    if (!this.pausedForWrites) return;
    this.pausedForWrites = false;
    if (this.o.mayResume(this.socket)) this.socket.resume();
  };

  private startHandOff(buf: Buffer, at: number): void {
    this.handingOff = true;
    const rest = at > 0 ? Buffer.from(buf.subarray(at)) : buf;
    this.pending = [rest];
    this.pendingBytes = rest.length;
    if (this.slots.length === 0) this.handOff();
  }

  private handOff(): void {
    if (this.done) return;
    const rest = this.pendingBytes > 0 ? Buffer.concat(this.pending, this.pendingBytes) : Buffer.alloc(0);
    this.pending = [];
    this.pendingBytes = 0;
    this.socket.off('data', this.onData);
    this.socket.off('drain', this.onDrain);
    this.socket.off('end', this.onEnd);
    this.socket.off('error', this.onError);
    this.finish();
    this.o.handOff(this.socket, rest);
  }

  /** The sweep: a request too slow to arrive gets 408, an idle connection is closed. */
  check(now: number): void {
    if (this.done || this.handingOff) return;
    if (this.partialSince > 0) {
      const limit =
        this.need > 0 ? this.o.requestTimeoutMs : Math.min(this.o.headersTimeoutMs, this.o.requestTimeoutMs);
      if (now - this.partialSince > limit) {
        this.socket.off('data', this.onData);
        this.finish();
        this.socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n', () =>
          this.socket.destroy(),
        );
      }
      return;
    }
    if (this.slots.length === 0 && now - this.lastActive > this.o.keepAliveTimeoutMs) {
      this.finish();
      this.socket.destroy();
    }
  }
}
