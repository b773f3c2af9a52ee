/**
 * RpcServer.holdInput: while the builder is busy the server reads no new requests (HTTP or
 * WebSocket, connections opened meanwhile included), still sends what it has to send, and
 * answers everything once it lets input in again.
 */
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Methods, RpcContext } from '../src/rpc/context.js';
import { Dispatcher } from '../src/rpc/dispatch.js';
import { type RpcServer, startRpcServer } from '../src/rpc/server.js';
import { waitFor } from './node-helpers.js';

const methods: Methods = {
  test_ping: { params: [], required: 0, run: () => 'pong' },
};

let server: RpcServer | undefined;
const pushers: WebSocket[] = [];

afterEach(async () => {
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
});
