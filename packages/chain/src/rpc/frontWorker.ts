/**
 * A front thread (docs/decisions/0330-front-threads.md): it accepts connections on a copy of the
 * node's listening socket, beside the main thread, and serves them with the same lean HTTP/1.1
 * front (http1.ts). The common state reads it answers from its replica (readReplica.ts), after
 * taking in every state message the main thread posted before the version it reads now; every
 * other request goes to the main thread as it came, and its answer comes back as it was written.
 * A connection the lean front hands off (WebSocket, GET, a refused head, an oversized body, ...)
 * goes on to the main thread's Node HTTP server through a tunnel (tunnelSocket.ts).
 */
import { readlinkSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import {
  FrontCounter,
  type FromWorker,
  type FrontWorkerData,
  type StateMessage,
  type ToWorker,
} from './frontProtocol.js';
import { acceptIntoBuffer, type ReadSink } from './acceptIntoBuffer.js';
import { Http1Front } from './http1.js';
import { listenOnCopy } from './listenerCopy.js';
import { type ReadKey, ReadReplica } from './readReplica.js';

/** Bodies longer than this hold no read the replica answers: not parsed here. */
const MAX_LOCAL_BODY = 2048;
const COPY_TIMEOUT_MS = 30_000;
/**
 * The longest a thread over its share of the connections waits, after accepting one, for
 * another thread to accept the next (a thread that does accept ends the wait at once).
 */
const OVER_SHARE_PAUSE_MS = 1;

/** What every connection of this thread reads into, one read at a time (acceptIntoBuffer.ts). */
const READ_BUFFER = Buffer.allocUnsafeSlow(64 * 1024);

const port = parentPort as MessagePort;
const d = workerData as FrontWorkerData;
const version = new Int32Array(d.version);
const replica = new ReadReplica(d.start, d.cacheEntries, d.cacheCodeBytes);

function post(m: FromWorker, transfer?: ArrayBuffer[]): void {
  port.postMessage(m, transfer ?? []);
}

/** An exact-size copy, to transfer (a socket's chunk is often a view of a larger buffer). */
function copyOf(b: Uint8Array): Uint8Array {
  return new Uint8Array(b);
}

// State messages are taken in as they arrive, and synchronously before a read when the
// version shows that some have been posted and not yet taken in.
d.statePort.on('message', (m: StateMessage) => replica.apply(m));
d.statePort.unref();
function catchUp(): void {
  const target = Atomics.load(version, FrontCounter.Version);
  while (replica.applied < target) {
    const m = receiveMessageOnPort(d.statePort);
    if (!m) break;
    replica.apply(m.message as StateMessage);
  }
}

// Spreading the connections. Every front thread waits on the same listening socket and the
// kernel wakes them all for a new connection: whichever runs first accepts every connection
// waiting, so a burst (a client opening its pool) can land on one thread and leave the others
// idle. A thread that holds more than its share of the open connections after an accept stops
// for a moment in the middle of the burst, so that the others take the next ones (Node cannot
// stop a thread from accepting, nor move a socket to another thread).
const OPEN = FrontCounter.Open + d.index;
function overShare(): boolean {
  let total = 0;
  let listening = 0;
  for (let i = 0; i < d.threads; i++) {
    // -1: a thread that does not listen (not yet, or no longer).
    const n = Atomics.load(version, FrontCounter.Open + i);
    if (n < 0) continue;
    total += n;
    listening++;
  }
  return listening > 1 && Atomics.load(version, OPEN) > Math.ceil(total / listening);
}
/** Waits until another thread accepts a connection (the count moves past `seen`), at most a moment. */
function pauseAccepting(seen: number): void {
  Atomics.wait(version, FrontCounter.Accepted, seen, OVER_SHARE_PAUSE_MS);
}

// Requests forwarded to the main thread, by id.
let nextId = 1;
const forwarded = new Map<number, { reply: (status: number, text?: string) => void; key?: ReadKey }>();
/** Sockets the lean front reads; paused while too many forwarded requests wait. */
const sockets = new Set<Socket>();
let pressured = false;

function forward(
  body: Buffer,
  client: string | undefined,
  reply: (s: number, t?: string) => void,
  key?: ReadKey,
) {
  const id = nextId++;
  forwarded.set(id, { reply, key });
  const copy = copyOf(body);
  post({ t: 'rpc', id, body: copy, client }, [copy.buffer as ArrayBuffer]);
  if (!pressured && forwarded.size >= d.forwardHighWater) {
    pressured = true;
    for (const s of sockets) s.pause();
  }
}

function answered(m: Extract<ToWorker, { t: 'rpc' }>): void {
  const f = forwarded.get(m.id);
  if (!f) return;
  forwarded.delete(m.id);
  if (f.key && m.status === 200 && m.text !== undefined) {
    try {
      const out = JSON.parse(m.text) as { result?: unknown; error?: unknown };
      if (typeof out.result === 'string' && out.error === undefined) replica.fill(f.key, out.result, m.v);
    } catch {
      // Not kept; the client gets the text as it is.
    }
  }
  f.reply(m.status, m.text);
  if (pressured && forwarded.size <= d.forwardHighWater / 2) {
    pressured = false;
    for (const s of sockets) if (!s.destroyed) s.resume();
  }
}

function onRequest(body: Buffer, client: string | undefined, reply: (s: number, t?: string) => void): void {
  let parsed: unknown;
  if (body.length <= MAX_LOCAL_BODY) {
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      // Left undefined: the main thread words the parse error.
    }
  }
  catchUp();
  const plan = replica.plan(parsed);
  if (plan.kind === 'answer') {
    Atomics.add(version, FrontCounter.Answered, 1);
    reply(200, plan.text);
  } else forward(body, client, reply, plan.kind === 'fill' ? plan.key : undefined);
}

// Tunnels: connections handed to the main thread's Node HTTP server.
let nextTunnel = 1;
const tunnels = new Map<number, Socket>();
/** Where the bytes of a connection that reads into READ_BUFFER go, by its socket. */
const routes = new WeakMap<Socket, (sink: ReadSink | undefined) => void>();

function tunnel(socket: Socket, rest: Buffer): void {
  sockets.delete(socket);
  const id = nextTunnel++;
  tunnels.set(id, socket);
  const first = copyOf(rest);
  post(
    {
      t: 'open',
      id,
      rest: first,
      remoteAddress: socket.remoteAddress,
      remotePort: socket.remotePort,
      remoteFamily: socket.remoteFamily,
    },
    [first.buffer as ArrayBuffer],
  );
  const onChunk = (chunk: Buffer) => {
    const c = copyOf(chunk);
    post({ t: 'data', id, chunk: c }, [c.buffer as ArrayBuffer]);
  };
  const route = routes.get(socket);
  if (route) route(onChunk);
  else socket.on('data', onChunk);
  socket.on('end', () => post({ t: 'end', id }));
  socket.on('error', () => socket.destroy());
  socket.once('close', () => {
    tunnels.delete(id);
    post({ t: 'close', id });
  });
  socket.resume();
}

function onTunnelMessage(m: Exclude<ToWorker, { t: 'rpc' } | { t: 'stop' }>): void {
  const s = tunnels.get(m.id);
  if (!s) return;
  switch (m.t) {
    case 'write': {
      const n = m.chunk.byteLength;
      s.write(m.chunk, () => post({ t: 'sent', id: m.id, n }));
      // A client that does not read: dropped, as the main thread drops a slow WebSocket reader.
      if (s.writableLength > d.maxUnsentBytes) s.destroy();
      return;
    }
    case 'end':
      s.end();
      return;
    case 'destroy':
      s.destroy();
      return;
    case 'pause':
      s.pause();
      return;
    case 'resume':
      s.resume();
      return;
  }
}

let server: Server | undefined;
let front: Http1Front | undefined;
let stopping = false;

port.on('message', (m: ToWorker) => {
  if (m.t === 'rpc') return answered(m);
  if (m.t === 'stop') return stop();
  onTunnelMessage(m);
});

function stop(): void {
  stopping = true;
  front?.close();
  for (const s of sockets) s.destroy();
  for (const s of tunnels.values()) s.destroy();
  const done = () => {
    post({ t: 'stopped' });
    port.close();
    d.statePort.close();
  };
  if (server) server.close(done);
  else done();
}

async function main(): Promise<void> {
  front = new Http1Front(
    {
      headersTimeoutMs: d.headersTimeoutMs,
      requestTimeoutMs: d.requestTimeoutMs,
      keepAliveTimeoutMs: d.keepAliveTimeoutMs,
      maxBody: d.maxBody,
      onRequest,
      handOff: tunnel,
      mayResume: () => !pressured,
    },
    d.checkEveryMs,
  );
  try {
    server = await listenOnCopy(d.fd, COPY_TIMEOUT_MS);
  } catch (e) {
    post({ t: 'failed', message: (e as Error).message });
    return;
  }
  if (stopping) {
    server.close(() => post({ t: 'stopped' }));
    return;
  }
  // As the main thread's HTTP server has them: each direction ends on its own, no Nagle delay.
  (server as Server & { allowHalfOpen: boolean }).allowHalfOpen = true;
  Atomics.store(version, OPEN, 0);
  let tid: number | undefined;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop()) || undefined;
  } catch {
    // Not Linux.
  }
  const onConnection = (s: Socket, route?: (sink: ReadSink | undefined) => void) => {
    s.setNoDelay(true);
    const seen = Atomics.add(version, FrontCounter.Accepted, 1) + 1;
    // A thread waiting for the others to take a connection (pauseAccepting) goes on.
    Atomics.notify(version, FrontCounter.Accepted);
    Atomics.add(version, OPEN, 1);
    sockets.add(s);
    s.once('close', () => {
      sockets.delete(s);
      Atomics.sub(version, OPEN, 1);
    });
    if (route) {
      routes.set(s, route);
      route(front?.serve(s, READ_BUFFER));
    } else front?.serve(s);
    if (pressured) s.pause();
    if (overShare()) pauseAccepting(seen);
  };
  if (!acceptIntoBuffer(server, READ_BUFFER, onConnection))
    server.on('connection', (s: Socket) => onConnection(s));
  post({ t: 'listening', tid });
}

void main();
