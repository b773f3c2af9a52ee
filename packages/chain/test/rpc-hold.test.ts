/**
 * RpcServer.holdInput: while the builder is busy the server reads no new requests (HTTP or
 * WebSocket, connections opened meanwhile included), still sends what it has to send, and
 * answers everything once it lets input in again. Requests run a slice at a time (a burst never
 * holds the thread whole), and none starts just before the builder's next window.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Methods, RpcContext } from '../src/rpc/context.js';
import { Dispatcher } from '../src/rpc/dispatch.js';
import { type RpcServer, startRpcServer } from '../src/rpc/server.js';
import { waitFor } from './node-helpers.js';

/** What test_work saw: when each call ran, and how many had run when a timer set by the first fired. */
const work = { calls: [] as number[], atTimer: -1 };

const methods: Methods = {
  test_ping: { params: [], required: 0, run: () => 'pong' },
  // A millisecond of the thread, like an eth_sendRawTransaction under load (ecrecover, pool checks).
  test_work: {
    params: [],
    required: 0,
    run: () => {
      if (work.calls.length === 0) setTimeout(() => (work.atTimer = work.calls.length), 0);
      work.calls.push(Date.now());
      const until = performance.now() + 1;
      while (performance.now() < until);
      return work.calls.length;
    },
  },
};

let server: RpcServer | undefined;
const pushers: WebSocket[] = [];

afterEach(async () => {
  work.calls = [];
  work.atTimer = -1;
  await server?.close();
  server = undefined;
  pushers.length = 0;
});

async function start(): Promise<{ url: string; ws: string }> {
  server = await startRpcServer(new Dispatcher(methods, {} as RpcContext), '127.0.0.1', 0, (path, ws) => {
    if (path !== '/push') return false;
    pushers.push(ws);
    return true;
  });
  return { url: `http://127.0.0.1:${server.port}`, ws: `ws://127.0.0.1:${server.port}` };
}

/** An HTTP call on a connection of its own; resolves with the answer and when it came. */
function post(url: string, id: number): Promise<{ body: any; at: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ body: JSON.parse(text), at: Date.now() }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id, method: 'test_ping', params: [] }));
  });
}

function open(url: string): Promise<{ ws: WebSocket; got: { m: any; at: number }[]; openedAt: number }> {
  const ws = new WebSocket(url);
  const got: { m: any; at: number }[] = [];
  ws.on('message', (d) => got.push({ m: JSON.parse(d.toString()), at: Date.now() }));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, got, openedAt: Date.now() }));
    ws.once('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('holding input', () => {
  it('answers no request while held, over HTTP or WebSocket, then answers them all', async () => {
    const { url, ws: wsUrl } = await start();
    const sub = await open(wsUrl);
    // A connection that is already open, and one that opens while input is held.
    const keptAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    await new Promise<void>((resolve) =>
      http
        .request(url, { method: 'POST', agent: keptAlive }, (res) => res.resume().on('end', resolve))
        .end('{"jsonrpc":"2.0","id":0,"method":"test_ping","params":[]}'),
    );

    server!.holdInput(true);
    const heldFrom = Date.now();
    sub.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_ping', params: [] }));
    const fresh = post(url, 2);
    const reused = new Promise<{ at: number }>((resolve) =>
      http
        .request(url, { method: 'POST', agent: keptAlive }, (res) =>
          res.resume().on('end', () => resolve({ at: Date.now() })),
        )
        .end('{"jsonrpc":"2.0","id":3,"method":"test_ping","params":[]}'),
    );
    // Its upgrade request is input too: it is read once input is let in.
    const lateOpening = open(wsUrl);
    await sleep(150);
    expect(sub.got).toEqual([]);

    const releasedAt = Date.now();
    server!.holdInput(false);
    const [a, b] = await Promise.all([fresh, reused]);
    const viaSub = await waitFor(async () => sub.got.find((g) => g.m.id === 1));
    const late = await lateOpening;
    late.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'test_ping', params: [] }));
    const viaLate = await waitFor(async () => late.got.find((g) => g.m.id === 4));
    expect(a.body).toEqual({ jsonrpc: '2.0', id: 2, result: 'pong' });
    expect(viaSub.m.result).toBe('pong');
    expect(viaLate.m.result).toBe('pong');
    for (const at of [a.at, b.at, viaSub.at, late.openedAt]) expect(at).toBeGreaterThanOrEqual(releasedAt);
    expect(releasedAt - heldFrom).toBeGreaterThanOrEqual(150);

    // Once let in, input flows at once.
    const again = await post(url, 5);
    expect(again.body.result).toBe('pong');
    sub.ws.close();
    late.ws.close();
    keptAlive.destroy();
  });

  it('still sends while held: pushes reach their clients', async () => {
    const { ws: wsUrl } = await start();
    const client = await open(`${wsUrl}/push`);
    await waitFor(async () => (pushers.length ? true : undefined));
    server!.holdInput(true);
    pushers[0].send(JSON.stringify({ pushed: 1 }));
    const got = await waitFor(async () => client.got.find((g) => g.m.pushed === 1));
    expect(got.m).toEqual({ pushed: 1 });
    server!.holdInput(false);
    client.ws.close();
  });

  it('holding or letting in twice changes nothing', async () => {
    const { url } = await start();
    server!.holdInput(true);
    server!.holdInput(true);
    const answer = post(url, 1);
    await sleep(50);
    server!.holdInput(false);
    server!.holdInput(false);
    expect((await answer).body.result).toBe('pong');
    expect((await post(url, 2)).body.result).toBe('pong');
  });

  it('lets timers run inside a burst of requests read at once', async () => {
    const { ws: wsUrl } = await start();
    const c = await open(wsUrl);
    // One write (~7 KB), so one read on the server: ws emits the hundred messages back to back.
    const socket = (c.ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.cork();
    for (let id = 1; id <= 100; id++)
      c.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'test_work', params: [] }));
    socket.uncork();
    await waitFor(async () => (c.got.length === 100 ? true : undefined));
    expect(c.got.map((g) => g.m.result).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => i + 1),
    );
    // Answered in the order sent.
    expect(c.got.map((g) => g.m.id)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    // The timer set by the first call fired long before the hundredth ran (a slice is ~10 ms).
    expect(work.atTimer).toBeGreaterThan(0);
    expect(work.atTimer).toBeLessThan(50);
    c.ws.close();
  });

  it('a client sending faster than it is answered is paused, then resumed: every request answered in order', async () => {
    const { ws: wsUrl } = await start();
    const c = await open(wsUrl);
    // 2,500 requests of 1 ms each arrive in well under a second: the queue passes its high-water
    // mark (2,048), reading stops, and resumes once half has drained. A stop never undone would
    // leave the rest unanswered.
    const n = 2500;
    for (let id = 1; id <= n; id++)
      c.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'test_work', params: [] }));
    await waitFor(async () => (c.got.length === n ? true : undefined), 30_000);
    expect(c.got.map((g) => g.m.id)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    c.ws.close();
  }, 40_000);

  it('starts no request just before the next window, and runs them if no window comes', async () => {
    const { ws: wsUrl } = await start();
    const c = await open(wsUrl);
    // The next window is due at once: requests wait for it...
    const nextAt = Date.now() + 1;
    server!.holdInput(false, nextAt);
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_work', params: [] }));
    // ...and, when it does not come (a builder that stopped), run just after it.
    const got = await waitFor(async () => c.got.find((g) => g.m.id === 1));
    expect(got.m.result).toBe(1);
    expect(work.calls[0]).toBeGreaterThanOrEqual(nextAt);

    // A window that begins: they wait through it.
    server!.holdInput(false, Date.now() + 1);
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'test_work', params: [] }));
    await sleep(1);
    server!.holdInput(true);
    await sleep(100);
    expect(c.got.find((g) => g.m.id === 2)).toBeUndefined();
    const releasedAt = Date.now();
    server!.holdInput(false);
    const second = await waitFor(async () => c.got.find((g) => g.m.id === 2));
    expect(second.m.result).toBe(2);
    expect(work.calls[1]).toBeGreaterThanOrEqual(releasedAt);
    c.ws.close();
  });

  it('lets timers run inside a batch, and answers it whole and in order', async () => {
    const { url } = await start();
    const batch = Array.from({ length: 100 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'test_work',
      params: [],
    }));
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(batch),
    });
    const out = (await res.json()) as { id: number; result: number }[];
    expect(out.map((r) => [r.id, r.result])).toEqual(batch.map((b) => [b.id, b.id]));
    expect(work.atTimer).toBeGreaterThan(0);
    expect(work.atTimer).toBeLessThan(50);
  });
});

describe('a dispatcher fault', () => {
  it('over WebSocket: the client gets an internal error and the connection keeps answering', async () => {
    const real = new Dispatcher(methods, {} as RpcContext);
    // A fault, not the thing under test: handle() itself throws on the first request.
    let faults = 1;
    const faulty = {
      handle: (body: unknown, conn?: unknown) => {
        if (faults-- > 0) throw new Error('dispatcher blew up');
        return real.handle(body, conn as never);
      },
    } as unknown as Dispatcher;
    server = await startRpcServer(faulty, '127.0.0.1', 0);
    const { ws, got } = await open(`ws://127.0.0.1:${server.port}`);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_ping', params: [] }));
    await waitFor(async () => got.length >= 1 || undefined);
    expect(got[0].m.error.code).toBe(-32603);
    expect(got[0].m.error.message).toContain('dispatcher blew up');
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'test_ping', params: [] }));
    await waitFor(async () => got.length >= 2 || undefined);
    expect(got[1].m).toMatchObject({ id: 2, result: 'pong' });
    ws.close();
  });
});
