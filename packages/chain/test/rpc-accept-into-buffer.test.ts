/**
 * A front thread's connections read into one buffer (rpc/acceptIntoBuffer.ts, Node's `onread`
 * for accepted sockets, through internals of Node's net module) and served by the lean HTTP
 * front over it (rpc/http1.ts): bytes arrive in order, what a request keeps past a read survives
 * the next read overwriting the buffer, and a connection handed to Node's server gets the bytes
 * that follow.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptIntoBuffer, type ReadSink } from '../src/rpc/acceptIntoBuffer.js';
import { Http1Front } from '../src/rpc/http1.js';

const servers: net.Server[] = [];
const fronts: Http1Front[] = [];
afterEach(async () => {
  for (const f of fronts.splice(0)) f.close();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

async function connect(port: number): Promise<net.Socket> {
  const c = net.connect(port, '127.0.0.1');
  c.setNoDelay(true);
  await new Promise((r) => c.once('connect', r));
  return c;
}

/** Collects what `c` receives until `done` says it is all there. */
function receive(c: net.Socket, done: (text: string) => boolean): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    c.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (done(text)) resolve(text);
    });
    c.once('error', reject);
  });
}

const pause = () => new Promise((r) => setTimeout(r, 30));

function post(body: string): string {
  return `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

describe('acceptIntoBuffer', () => {
  it("gives each accepted connection's bytes as views of the one buffer, with no 'connection' event", async () => {
    const shared = Buffer.allocUnsafeSlow(1024);
    const server = net.createServer();
    let connectionEvents = 0;
    server.on('connection', () => connectionEvents++);
    const port = await listen(server);
    const got: string[] = [];
    let views = 0;
    expect(
      acceptIntoBuffer(server, shared, (socket, route) =>
        route((chunk) => {
          got.push(chunk.toString());
          if (chunk.buffer === shared.buffer && chunk.byteOffset === 0) views++;
          socket.write(`got ${chunk.length}\n`);
        }),
      ),
    ).toBe(true);
    const c = await connect(port);
    const answers = receive(c, (t) => t.split('\n').length > 2);
    c.write('first');
    await pause();
    c.write('second!');
    expect(await answers).toBe('got 5\ngot 7\n');
    expect(got).toEqual(['first', 'second!']);
    expect(views).toBe(2);
    expect(connectionEvents).toBe(0);
    c.destroy();
  });
});

describe('the lean HTTP front over a shared read buffer', () => {
  /** A front answering each body as it came, over sockets accepted into `shared`. */
  async function echoFront(
    shared: Buffer,
    onHandOff?: (socket: net.Socket, rest: Buffer, route: (s: ReadSink) => void) => void,
  ) {
    const server = net.createServer();
    const routes = new WeakMap<net.Socket, (s: ReadSink | undefined) => void>();
    const front = new Http1Front(
      {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 10_000,
        keepAliveTimeoutMs: 5_000,
        maxBody: 1024,
        onRequest: (body, _client, reply) => reply(200, body.toString()),
        handOff: (socket, rest) => onHandOff?.(socket, rest, (s) => routes.get(socket)?.(s)),
        mayResume: () => true,
      },
      1000,
    );
    fronts.push(front);
    const port = await listen(server);
    acceptIntoBuffer(server, shared, (socket, route) => {
      routes.set(socket, route);
      route(front.serve(socket, shared));
    });
    return port;
  }

  it('keeps requests cut across reads whole, though each read overwrites the buffer', async () => {
    const shared = Buffer.allocUnsafeSlow(64 * 1024);
    const port = await echoFront(shared);
    const c = await connect(port);
    const first = post('{"n":"first"}');
    const second = post('{"n":"second, a longer body than the first one"}');
    const bodies = receive(c, (t) => t.includes('longer body than the first one"}'));
    // Each read lands at the buffer's start, over the bytes of the read before: a request's
    // start (in its head, then in its body) must have been kept as a copy.
    const parts = [
      first.slice(0, 30),
      first.slice(30, -5),
      first.slice(-5) + second.slice(0, -20),
      second.slice(-20),
    ];
    for (const part of parts) {
      c.write(part);
      await pause();
    }
    const text = await bodies;
    expect(text).toContain('\r\n\r\n{"n":"first"}HTTP/1.1 200 OK');
    expect(text.endsWith('\r\n\r\n{"n":"second, a longer body than the first one"}')).toBe(true);
    c.destroy();
  });

  it('hands a connection on with what it read, and the bytes after go where the caller routes them', async () => {
    const shared = Buffer.allocUnsafeSlow(64 * 1024);
    const later: string[] = [];
    let handedRest = '';
    const port = await echoFront(shared, (socket, rest, route) => {
      handedRest = rest.toString();
      route((chunk) => {
        later.push(chunk.toString());
        socket.end('handed\n');
      });
    });
    const c = await connect(port);
    const all = receive(c, (t) => t.endsWith('handed\n'));
    c.write(`${post('{"a":1}')}GET / HTTP/1.1\r\nHost: x\r\n\r\n`);
    await pause();
    c.write('after');
    const text = await all;
    expect(text).toContain('\r\n\r\n{"a":1}');
    expect(handedRest).toBe('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(later).toEqual(['after']);
  });
});
