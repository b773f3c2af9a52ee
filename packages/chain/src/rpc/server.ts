/**
 * JSON-RPC over HTTP POST and WebSocket on one port. Bodies are capped at 5 MiB (HTTP 413 with
 * a JSON-RPC error), WebSocket messages likewise; CORS is open so browser apps can call it.
 * Plain POSTs are read by a lean HTTP/1.1 front (http1.ts); Node's HTTP server gets the rest.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import type { EvmScheduler } from '../execution/evmBudget.js';
import type { Connection } from './context.js';
import type { Dispatcher } from './dispatch.js';
import { ErrorCode } from './errors.js';
import { FrontThreads } from './frontThreads.js';
import { Http1Front } from './http1.js';
import type { RpcLimits } from './limits.js';
import type { ReplicaPublisher } from './replicaPublisher.js';
import { QUEUE_HIGH_WATER, RequestQueue } from './requestQueue.js';
import { sendOrDrop } from './slowReaders.js';
import { CORS_HEADERS } from './cors.js';

/** The limits the server itself applies (docs/security.md). */
export type ServerLimits = Pick<
  RpcLimits,
  'wsMaxBufferedBytes' | 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs'
>;

const DEFAULT_SERVER_LIMITS: ServerLimits = {
  wsMaxBufferedBytes: 16 * 1024 * 1024,
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 30_000,
};

export const MAX_BODY = 5 * 1024 * 1024;

/** How long an idle HTTP connection is kept open. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Front threads beside the main one (frontThreads.ts, `--rpc-threads`). */
export interface ServerThreads {
  count: number;
  /** What the threads' read replicas are told of state changes (node.ts feeds it). */
  publisher: ReplicaPublisher;
  /** A thread that could not start (the node goes on with fewer). */
  onError(message: string): void;
}

function errorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } });
}

export interface RpcServer {
  port: number;
  /** Front threads accepting the connections in place of the main thread (0: none). */
  threads: number;
  /** Their ids in the kernel (Linux): they serve every connection, at the main thread's priority. */
  threadIds: number[];
  /**
   * Holds new requests on every connection (HTTP and WebSocket; they wait in the socket's
   * buffer) or lets them in again. Responses and pushes still go out. Consumer: the node, while
   * the builder is busy (BlockProducer.onBusy). Released, `nextAt` (Date.now() clock) is when
   * the next hold is due: no request starts in the last moments before it.
   */
  holdInput(hold: boolean, nextAt?: number): void;
  /** Turns for long executions, taken in the request queue (EvmBudget). */
  scheduler: EvmScheduler;
  close(): Promise<void>;
}

export async function startRpcServer(
  dispatcher: Dispatcher,
  host: string,
  port: number,
  extraUpgrade?: (path: string, ws: WebSocket, query: URLSearchParams) => boolean,
  /** Other GET paths (GET /metrics): a body (or its promise) and its content type, or undefined. */
  extraGet?: (path: string) => { type: string; body: string | Promise<string> } | undefined,
  limits: ServerLimits = DEFAULT_SERVER_LIMITS,
  threads?: ServerThreads,
): Promise<RpcServer> {
  const send = (res: http.ServerResponse, status: number, body: string) => {
    // An explicit length: no chunked encoding, one write per response.
    const bytes = Buffer.from(body);
    res.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': bytes.length,
      ...CORS_HEADERS,
    });
    res.end(bytes);
  };

  /** Parses and runs one HTTP body; `reply` gets the status and JSON text (none: 204). */
  const answer = async (
    body: Buffer,
    client: string | undefined,
    reply: (status: number, text?: string) => void,
  ): Promise<void> => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return reply(200, errorBody(ErrorCode.Parse, 'parse error: the body is not valid JSON'));
    }
    try {
      const out = await dispatcher.handle(parsed, undefined, client);
      if (out === undefined) reply(204);
      else reply(200, JSON.stringify(out));
    } catch (e) {
      reply(500, errorBody(ErrorCode.Internal, `internal error: ${(e as Error).message}`));
    }
  };

  // Reading stops while a flashblock is due (holdInput) or while the queue is full.
  let holding = false;
  let pressured = false;
  const queue = new RequestQueue((on) => {
    pressured = on;
    pauseOrResume();
  });
  const server = http.createServer(
    {
      // A client that trickles its headers or body is cut off (HTTP 408), however slowly it sends.
      // Node refuses a header timeout longer than the request's: the headers are part of it.
      headersTimeout: Math.min(limits.httpHeadersTimeoutMs, limits.httpRequestTimeoutMs),
      requestTimeout: limits.httpRequestTimeoutMs,
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(1_000, limits.httpHeadersTimeoutMs / 4, limits.httpRequestTimeoutMs / 4),
      ),
    },
    (req, res) => {
      if (req.method === 'OPTIONS') {
        res.writeHead(204, CORS_HEADERS);
        res.end();
        return;
      }
      if (req.method === 'GET') {
        const extra = extraGet?.((req.url ?? '/').split('?')[0]);
        if (extra) {
          Promise.resolve(extra.body).then(
            (body) => {
              const bytes = Buffer.from(body);
              res.writeHead(200, {
                'Content-Type': extra.type,
                'Content-Length': bytes.length,
                ...CORS_HEADERS,
              });
              res.end(bytes);
            },
            (e) => send(res, 500, errorBody(ErrorCode.Internal, `internal error: ${(e as Error).message}`)),
          );
          return;
        }
        return send(res, 200, JSON.stringify({ ok: true, jsonrpc: 'POST JSON-RPC 2.0 here' }));
      }
      if (req.method !== 'POST')
        return send(res, 405, errorBody(ErrorCode.InvalidRequest, 'method not allowed: use POST'));
      const type = req.headers['content-type'];
      if (type && !/^application\/json|^application\/[a-z.+-]*json|^text\/plain/i.test(type))
        return send(
          res,
          415,
          errorBody(ErrorCode.InvalidRequest, `unsupported content type ${type.slice(0, 60)}`),
        );
      const declared = Number(req.headers['content-length'] ?? 0);
      if (declared > MAX_BODY) {
        send(
          res,
          413,
          errorBody(ErrorCode.InvalidRequest, `request body too large: limit is ${MAX_BODY} bytes`),
        );
        req.resume();
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let tooBig = false;
      req.on('data', (c: Buffer) => {
        if (tooBig) return;
        size += c.length;
        if (size > MAX_BODY) {
          tooBig = true;
          send(
            res,
            413,
            errorBody(ErrorCode.InvalidRequest, `request body too large: limit is ${MAX_BODY} bytes`),
          );
          chunks.length = 0;
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        // ~10 ms of JSON.parse per MB: a large body waits for a gap that long before a flashblock.
        if (!tooBig)
          queue.push(
            () =>
              void answer(Buffer.concat(chunks), req.socket.remoteAddress, (status, text) => {
                if (text !== undefined) return send(res, status, text);
                res.writeHead(status, CORS_HEADERS);
                res.end();
              }),
            size / 100_000,
          );
      });
      req.on('error', () => res.destroy());
    },
  );
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;

  // Held connections: only those this server paused are resumed (Node's HTTP server and ws
  // pause sockets themselves for backpressure, and keep them paused through a resume).
  let paused = false;
  const held = new Set<Socket | WebSocket>();
  const connections = new Set<Socket>();
  const hold = (c: Socket | WebSocket) => {
    if (c instanceof WebSocket ? c.isPaused : c.isPaused()) return;
    c.pause();
    held.add(c);
  };
  // Every connection starts on the lean front; what it does not serve goes on to Node's
  // server, whose own 'connection' listener (the documented way to hand it a socket) is kept
  // for that.
  const nodeConnection = server.listeners('connection');
  if (nodeConnection.length !== 1) throw new Error('http.Server: expected one connection listener');
  const toNode = nodeConnection[0] as (s: Socket) => void;
  server.removeListener('connection', toNode);
  /** A connection (or what is left of one) for Node's server. */
  function toNodeServer(s: Socket, rest: Buffer): void {
    // Paused so that no byte goes by between the two readers; Node's reader is resumed,
    // and held again (after the resume it schedules) if a hold is on.
    s.pause();
    held.delete(s);
    if (rest.length > 0) s.unshift(rest);
    toNode.call(server, s);
    s.resume();
    process.nextTick(() => paused && connections.has(s) && hold(s));
  }
  const connectionsCheckingInterval = Math.max(
    100,
    Math.min(1_000, limits.httpHeadersTimeoutMs / 4, limits.httpRequestTimeoutMs / 4),
  );
  const front = new Http1Front(
    {
      headersTimeoutMs: Math.min(limits.httpHeadersTimeoutMs, limits.httpRequestTimeoutMs),
      requestTimeoutMs: limits.httpRequestTimeoutMs,
      keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      maxBody: MAX_BODY,
      onRequest: (body, client, reply) =>
        queue.push(() => void answer(body, client, reply), body.length / 100_000),
      handOff: toNodeServer,
      mayResume: (s) => {
        if (!paused) return true;
        held.add(s);
        return false;
      },
    },
    connectionsCheckingInterval,
  );
  server.on('connection', (s: Socket) => {
    connections.add(s);
    s.once('close', () => {
      connections.delete(s);
      held.delete(s);
    });
    front.serve(s);
    process.nextTick(() => paused && connections.has(s) && hold(s));
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req, socket, head) => {
    // From here on the socket is the WebSocket's, paused and resumed through it.
    connections.delete(socket as Socket);
    if (held.delete(socket as Socket)) (socket as Socket).resume();
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => {
        sockets.delete(ws);
        held.delete(ws);
      });
      process.nextTick(() => paused && sockets.has(ws) && hold(ws));
      const [path, query = ''] = (req.url ?? '/').split('?', 2);
      if (extraUpgrade?.(path, ws, new URLSearchParams(query))) return;
      serveSocket(dispatcher, ws, queue, limits.wsMaxBufferedBytes);
    });
  });

  function pauseOrResume(): void {
    const on = holding || pressured;
    if (on === paused) return;
    paused = on;
    if (on) {
      for (const s of connections) hold(s);
      for (const ws of sockets) hold(ws);
    } else {
      for (const c of held) c.resume();
      held.clear();
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  // The listening socket's descriptor (internal, stable since Node 0.x; -1 where there is none,
  // as on Windows: one thread then).
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  const boundPort = (server.address() as AddressInfo).port;
  let closing = false;
  const frontThreads =
    threads && threads.count > 0 && typeof fd === 'number' && fd >= 0
      ? await FrontThreads.start({
          count: threads.count,
          fd,
          publisher: threads.publisher,
          front: {
            headersTimeoutMs: Math.min(limits.httpHeadersTimeoutMs, limits.httpRequestTimeoutMs),
            requestTimeoutMs: limits.httpRequestTimeoutMs,
            keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
            checkEveryMs: connectionsCheckingInterval,
            maxBody: MAX_BODY,
            forwardHighWater: QUEUE_HIGH_WATER,
            // What may wait in a tunnelled socket: well past what the main thread's side lets
            // wait (it drops a WebSocket that does not read at wsMaxBufferedBytes).
            maxUnsentBytes: 4 * (limits.wsMaxBufferedBytes + MAX_BODY),
          },
          // As if read on a socket of this thread: the same queue, the same answer.
          onRequest: (body, client, reply) =>
            queue.push(() => void answer(body, client, reply), body.length / 100_000),
          onConnection: (t, rest) => {
            const s = t as unknown as Socket;
            connections.add(s);
            s.once('close', () => {
              connections.delete(s);
              held.delete(s);
            });
            toNodeServer(s, rest);
          },
          onError: threads.onError,
          onNone: () => {
            if (closing) return;
            // Nothing accepts connections any more: this thread takes them again.
            threads.onError('no front thread is left: the main thread accepts connections again');
            listenAgain(server, boundPort, host, threads.onError);
          },
        })
      : undefined;
  // Once front threads listen, this thread stops accepting: it builds blocks and answers what
  // they forward, and new connections spread over the front threads only (decision 0400). Its
  // listening handle alone is closed (the threads' copies keep the socket listening); the HTTP
  // server stays as it is, for the connections the threads tunnel to it. Internal, as the
  // descriptor above: net.Server closes the same handle in close().
  if (frontThreads && frontThreads.count > 0) {
    const net = server as unknown as { _handle: { close(): void } | null };
    net._handle?.close();
    net._handle = null;
  }
  return {
    port: boundPort,
    threads: frontThreads?.count ?? 0,
    threadIds: frontThreads?.threadIds ?? [],
    scheduler: { turn: () => queue.turn(), mustYield: () => queue.mustYield() },
    holdInput: (on, nextAt) => {
      queue.hold(on, nextAt);
      holding = on;
      pauseOrResume();
    },
    close: async () => {
      closing = true;
      // The threads first: they stop accepting and close their copies of the socket.
      await frontThreads?.close();
      await new Promise<void>((resolve) => {
        for (const ws of sockets) ws.terminate();
        wss.close();
        front.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function serveSocket(dispatcher: Dispatcher, ws: WebSocket, queue: RequestQueue, maxBuffered: number): void {
  const closers: (() => void)[] = [];
  // A request may be answered after its socket closed (it waited in the queue): dropped then.
  // A reader that lets too much wait is dropped (slowReaders.ts).
  const sendText = (text: string) => sendOrDrop(ws, text, maxBuffered);
  const conn: Connection = {
    send: (m) => sendText(JSON.stringify(m)),
    onClose: (fn) => closers.push(fn),
    subscriptions: new Map(),
  };
  const answer = async (data: WebSocket.RawData, isBinary: boolean) => {
    let body: unknown;
    try {
      body = JSON.parse(isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString());
    } catch {
      return sendText(errorBody(ErrorCode.Parse, 'parse error: the message is not valid JSON'));
    }
    let out: unknown;
    try {
      out = await dispatcher.handle(body, conn);
    } catch (e) {
      // As over HTTP: the client gets an answer, the connection and the node keep going.
      return sendText(errorBody(ErrorCode.Internal, `internal error: ${(e as Error).message}`));
    }
    if (out !== undefined) conn.send(out);
  };
  ws.on('message', (data, isBinary) =>
    queue.push(() => void answer(data, isBinary), (data as Buffer).length / 100_000),
  );
  ws.on('close', () => {
    for (const off of conn.subscriptions.values()) off();
    conn.subscriptions.clear();
    for (const fn of closers) fn();
  });
  ws.on('error', () => ws.terminate());
}

/**
 * Listens on the node's port again once no front thread is left. The port is free only from the
 * moment the last copy of the old socket closes; until this thread binds it, another process's
 * outgoing connection may hold it as its local port (EADDRINUSE). That lasts as long as the
 * connection does, so the bind is tried again for a while before giving up.
 */
function listenAgain(
  server: http.Server,
  port: number,
  host: string,
  onError: (message: string) => void,
  tries = 100,
): void {
  const failed = (e: NodeJS.ErrnoException) => {
    server.off('listening', listened);
    if (e.code === 'EADDRINUSE' && tries > 1)
      setTimeout(() => listenAgain(server, port, host, onError, tries - 1), 100).unref();
    else onError(`could not listen again: ${e.message}`);
  };
  const listened = () => server.off('error', failed);
  server.once('error', failed);
  server.once('listening', listened);
  server.listen(port, host);
}
