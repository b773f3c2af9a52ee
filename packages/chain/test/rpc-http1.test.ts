/**
 * The lean HTTP/1.1 front (rpc/http1.ts) over raw sockets: plain POSTs answered in order however
 * the bytes arrive, and everything else on a connection answered by Node's HTTP server as before
 * (chunked bodies, Expect, HTTP/1.0, GET and OPTIONS, malformed heads), in the order sent.
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Methods, RpcContext } from '../src/rpc/context.js';
import { Dispatcher } from '../src/rpc/dispatch.js';
import { type RpcServer, startRpcServer } from '../src/rpc/server.js';

const methods: Methods = {
  test_echo: { params: ['value'], required: 1, run: (p) => p.raw(0) },
  // Answers after `ms`: a later request on the same connection may be ready first.
  test_sleep: {
    params: ['ms'],
    required: 1,
    run: async (p) => {
      const ms = Number(p.raw(0));
      await new Promise((r) => setTimeout(r, ms));
      return ms;
    },
  },
};

let server: RpcServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(limits?: Parameters<typeof startRpcServer>[5]): Promise<number> {
  server = await startRpcServer(
    new Dispatcher(methods, {} as RpcContext),
    '127.0.0.1',
    0,
    undefined,
    (path) => (path === '/extra' ? { type: 'text/plain', body: 'extra' } : undefined),
    limits,
  );
  return server.port;
}

const call = (id: number, method: string, params: unknown[]) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

function post(body: string, headers = ''): string {
  return `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits what came back on a connection into HTTP responses (Content-Length framed). */
function replies(raw: Buffer): Reply[] {
  const out: Reply[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const [line, ...fields] = raw.toString('latin1', at, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const f of fields) {
      const i = f.indexOf(':');
      headers[f.slice(0, i).toLowerCase()] = f.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    out.push({
      status: Number(line.split(' ')[1]),
      headers,
      body: raw.toString('utf8', end + 4, end + 4 + length),
    });
    at = end + 4 + length;
  }
  return out;
}

/**
 * Writes `parts` on one connection, `gapMs` apart, and collects what comes back until `count`
 * responses are in (or the connection closes). `halfClose`: the client ends its side after;
 * `untilClose`: waits for the server to close the connection.
 */
function exchange(
  port: number,
  parts: (string | Buffer)[],
  count: number,
  { gapMs = 0, halfClose = false, untilClose = false } = {},
): Promise<{ replies: Reply[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let got = Buffer.alloc(0);
    let closed = false;
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      resolve({ replies: replies(got), closed });
    };
    const timer = setTimeout(done, 5_000);
    s.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (replies(got).filter((r) => r.status !== 100).length >= count && !halfClose && !untilClose) done();
    });
    s.on('end', () => {
      closed = true;
      done();
    });
    s.on('error', reject);
    s.on('connect', async () => {
      for (const p of parts) {
        s.write(p);
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
      }
      if (halfClose) s.end();
    });
  });
}

describe('the lean HTTP/1.1 front', () => {
  it('answers pipelined POSTs in order, whatever the byte boundaries and however long each takes', async () => {
    const port = await start();
    const stream = [
      post(call(1, 'test_sleep', [60])),
      post(call(2, 'test_echo', ['two'])),
      post(call(3, 'test_sleep', [10])),
      post(call(4, 'test_echo', ['ünïcode ✓'])),
    ].join('');
    // One write, then the same bytes 7 at a time.
    const whole = await exchange(port, [stream], 4);
    const bytes = Buffer.from(stream);
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) =>
      bytes.subarray(i * 7, i * 7 + 7),
    );
    const trickled = await exchange(port, pieces, 4, { gapMs: 1 });
    for (const { replies: r, closed } of [whole, trickled]) {
      expect(closed).toBe(false);
      expect(r.map((x) => x.status)).toEqual([200, 200, 200, 200]);
      expect(r.map((x) => JSON.parse(x.body))).toEqual([
        { jsonrpc: '2.0', id: 1, result: 60 },
        { jsonrpc: '2.0', id: 2, result: 'two' },
        { jsonrpc: '2.0', id: 3, result: 10 },
        { jsonrpc: '2.0', id: 4, result: 'ünïcode ✓' },
      ]);
      expect(r[0].headers['content-type']).toBe('application/json');
      expect(r[0].headers['access-control-allow-origin']).toBe('*');
      expect(r[0].headers.connection).toBe('keep-alive');
    }
  });

  it('answers a notification with 204, bad JSON with -32700, and keeps the connection', async () => {
    const port = await start();
    const { replies: r } = await exchange(
      port,
      [
        post('{"jsonrpc":"2.0","method":"test_echo","params":[1]}') +
          post('{"jsonrpc":"2.0",') +
          post(call(9, 'test_echo', [9])),
      ],
      3,
    );
    expect(r.map((x) => x.status)).toEqual([204, 200, 200]);
    expect(r[0].body).toBe('');
    expect(JSON.parse(r[1].body).error.code).toBe(-32700);
    expect(JSON.parse(r[2].body).result).toBe(9);
  });

  it("hands the rest of a connection to Node's server at the first request it does not serve, in order", async () => {
    const port = await start();
    const chunked = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${(() => {
      const b = call(3, 'test_echo', ['chunked']);
      return `${b.length.toString(16)}\r\n${b}\r\n0\r\n\r\n`;
    })()}`;
    const { replies: r } = await exchange(
      port,
      [
        post(call(1, 'test_sleep', [40])) +
          'GET /extra HTTP/1.1\r\nHost: x\r\n\r\n' +
          chunked +
          'OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n' +
          post(call(5, 'test_echo', ['after'])),
      ],
      5,
    );
    expect(r.map((x) => x.status)).toEqual([200, 200, 200, 204, 200]);
    expect(JSON.parse(r[0].body).result).toBe(40);
    expect(r[1].body).toBe('extra');
    expect(JSON.parse(r[2].body).result).toBe('chunked');
    expect(r[3].headers['access-control-allow-methods']).toBe('POST, GET, OPTIONS');
    expect(JSON.parse(r[4].body).result).toBe('after');
  });

  it('leaves Expect, HTTP/1.0 and Connection: close to Node, which answers them as before', async () => {
    const port = await start();
    const body = call(1, 'test_echo', ['x']);
    const expectContinue = await exchange(
      port,
      [
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`,
        body,
      ],
      1,
      { gapMs: 50 },
    );
    expect(expectContinue.replies.map((x) => x.status)).toEqual([100, 200]);
    const http10 = await exchange(
      port,
      [`POST / HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
      1,
    );
    expect(JSON.parse(http10.replies[0].body).result).toBe('x');
    const close = await exchange(port, [post(body, 'Connection: close\r\n')], 1, { untilClose: true });
    expect(close.replies.map((x) => x.status)).toEqual([200]);
    expect(close.closed).toBe(true);
  });

  it('answers a client that half-closes after its requests, then closes', async () => {
    const port = await start();
    const r = await exchange(port, [post(call(1, 'test_sleep', [30])) + post(call(2, 'test_echo', [2]))], 2, {
      halfClose: true,
    });
    expect(r.replies.map((x) => JSON.parse(x.body).id)).toEqual([1, 2]);
    expect(r.closed).toBe(true);
  });

  it("refuses malformed or oversized heads as Node's server does (400, 413, 415, 431)", async () => {
    const port = await start();
    const body = call(1, 'test_echo', ['x']);
    const cases: [string, number][] = [
      [`POST / HTTP/1.1\r\nHost: x\r\nContent-Length : ${body.length}\r\n\r\n${body}`, 400],
      [`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n${body}`, 400],
      [
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nContent-Length: 3\r\n\r\n${body}`,
        400,
      ],
      [`POST / HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 400],
      [`POST / HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 400],
      ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 6000000\r\n\r\n', 413],
      [
        `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
        415,
      ],
      [`POST / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`, 431],
    ];
    for (const [request, status] of cases) {
      const { replies: r } = await exchange(port, [request], 1);
      expect({ request: request.slice(0, 60), status: r[0]?.status }).toEqual({
        request: request.slice(0, 60),
        status,
      });
    }
    // And the server still answers.
    const { replies: ok } = await exchange(port, [post(body)], 1);
    expect(JSON.parse(ok[0].body).result).toBe('x');
  });

  it('cuts off a request whose head or body does not arrive in time (408), after answering those before', async () => {
    const port = await start({
      wsMaxBufferedBytes: 1 << 20,
      httpHeadersTimeoutMs: 300,
      httpRequestTimeoutMs: 600,
    });
    const t0 = performance.now();
    const [head, body] = await Promise.all([
      exchange(port, [`${post(call(1, 'test_echo', [1]))}POST / HTTP/1.1\r\nHost: x\r\n`], 2, {
        untilClose: true,
      }),
      exchange(port, ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{'], 1, { untilClose: true }),
    ]);
    expect(head.replies.map((x) => x.status)).toEqual([200, 408]);
    expect(body.replies.map((x) => x.status)).toEqual([408]);
    expect(head.closed && body.closed).toBe(true);
    expect(performance.now() - t0).toBeLessThan(3_000);
  });
});
