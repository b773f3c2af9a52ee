/**
 * Finding 7 of issue 29, against a listening server: a slow sender is cut by the request and
 * header timeouts (408, the service's error body); notification streams are capped per session
 * and per wallet, end with their session (sign-out elsewhere, expiry, deletion) and drop a reader
 * that falls behind; signed-in routes and the admin API count the IP before looking at the token.
 */
import net from 'node:net';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { platformLimitDefaults } from '../src/settings.js';
import {
  backends,
  cleanupBackends,
  type ListeningApp,
  listenApp,
  rawRequest,
  signInOverHttp,
} from './helpers.js';

afterAll(cleanupBackends);

const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const sqlite = backends[0]!;

const signIn = (t: ListeningApp, account = alice) => signInOverHttp(t, account);

/** A raw connection: what it received, and when the server closed it. */
function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (c) => received.push(c));
  socket.on('error', () => {});
  const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
  return { socket, closed, text: () => Buffer.concat(received).toString('utf8') };
}

describe('request timeouts', () => {
  let t: ListeningApp;
  afterEach(async () => {
    await t?.close();
  });

  it('defaults: 30 s for a request, 10 s for its headers', () => {
    expect(platformLimitDefaults.requestTimeoutMs).toBe(30_000);
    expect(platformLimitDefaults.headersTimeoutMs).toBe(10_000);
  });

  it('a body trickled a byte at a time is cut at the request timeout with 408', async () => {
    t = await listenApp(sqlite, { requestTimeoutMs: 2000, headersTimeoutMs: 1000 });
    const c = connect(t.port);
    const started = Date.now();
    c.socket.write(
      `POST /api/v1/notifications/send HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${t.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    const drip = setInterval(() => c.socket.writable && c.socket.write(' '), 400);
    const closedAt = await c.closed;
    clearInterval(drip);
    expect(closedAt - started).toBeGreaterThanOrEqual(1900);
    expect(closedAt - started).toBeLessThan(6000);
    const [head, body] = c.text().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408/);
    expect(JSON.parse(body!)).toEqual({
      success: false,
      error: 'Request Timeout',
      message: 'the request did not arrive within the request timeout',
    });
    // The server still answers.
    expect((await rawRequest(`${t.url}/healthz`)).status).toBe(200);
  });

  it('headers trickled a byte at a time are cut at the headers timeout', async () => {
    t = await listenApp(sqlite, { requestTimeoutMs: 5000, headersTimeoutMs: 1000 });
    const c = connect(t.port);
    const started = Date.now();
    const line = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';
    let i = 0;
    const drip = setInterval(() => c.socket.writable && c.socket.write(line[i++ % line.length]!), 200);
    const closedAt = await c.closed;
    clearInterval(drip);
    expect(closedAt - started).toBeLessThan(4000);
    expect(c.text()).toMatch(/^HTTP\/1\.1 408/);
  });
});

describe('notification streams', () => {
  let t: ListeningApp;
  afterEach(async () => {
    await t?.close();
  });

  /** Opens a stream; resolves once its headers are in, with a promise of its end. */
  async function open(token: string) {
    const controller = new AbortController();
    const res = await fetch(`${t.url}/api/v1/client/notifications/stream`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    if (res.status !== 200) return { status: res.status, body: (await res.json()) as any, close() {} };
    const reader = res.body!.getReader();
    const ended = (async () => {
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return Date.now();
    })();
    return { status: 200, ended, close: () => controller.abort() };
  }

  it('at most 5 per session (by default) and the configured number per wallet', async () => {
    expect(platformLimitDefaults.streamsPerSession).toBe(5);
    t = await listenApp(sqlite, { streamsPerAddress: 7 });
    const token = await signIn(t);
    const streams = [];
    for (let i = 0; i < 5; i++) streams.push(await open(token));
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await open(token);
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual({
      success: false,
      error: 'Too Many Requests',
      message: 'at most 5 open notification streams per session; close one first',
    });
    // Another session of the same wallet: two more, then the wallet's cap of 7.
    const second = await signIn(t);
    streams.push(await open(second), await open(second));
    const eighth = await open(second);
    expect(eighth.status).toBe(429);
    expect(eighth.body.message).toContain('per wallet');
    // Closing one frees its place.
    streams[0]!.close();
    await new Promise((r) => setTimeout(r, 200));
    const again = await open(token);
    expect(again.status).toBe(200);
    for (const s of [...streams, again]) s.close();
  });

  it('end when the session expires, and when it is deleted elsewhere', async () => {
    t = await listenApp(sqlite, { sessionTtlMs: 1500, sseHeartbeatMs: 300 });
    const started = Date.now();
    const expiring = await open(await signIn(t));
    expect(expiring.status).toBe(200);
    const endedAt = await expiring.ended!;
    expect(endedAt - started).toBeGreaterThanOrEqual(1000);
    expect(endedAt - started).toBeLessThan(4000);

    // A sign-out on another instance deletes the row: the next heartbeat's re-check ends it.
    const token = await signIn(t, bob);
    const stream = await open(token);
    await t.app.platform.database.db.deleteFrom('sessions').execute();
    const deletedAt = Date.now();
    expect((await stream.ended!) - deletedAt).toBeLessThan(1500);
  });

  it('a reader that stops reading is dropped when its queue passes the bound', async () => {
    t = await listenApp(sqlite, { streamBufferBytes: 64 * 1024 });
    const token = await signIn(t);
    const c = connect(t.port);
    c.socket.write(
      `GET /api/v1/client/notifications/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`,
    );
    await new Promise((r) => setTimeout(r, 300));
    c.socket.pause(); // stops reading: the kernel's buffers fill, then the server's queue grows
    // ~16 MB in all, more than the kernel's socket buffers hold; in bursts well under the bound
    // (a healthy reader is never dropped for one burst).
    const total = 40_000;
    const burst = 50;
    const message = 'x'.repeat(200);
    for (let i = 0; i < total; i += burst) {
      const batch = Array.from({ length: burst }, (_, j) => ({
        id: `01J${String(i + j).padStart(23, '0')}`,
        projectId: 'p',
        appUrl: 'https://app.example.com',
        walletAddress: alice.address,
        title: 'fill',
        message,
        targetPath: null,
        createdAt: Date.now(),
        readAt: null,
        dedupeKey: `k${i + j}`,
      }));
      await t.app.platform.fanout.publish(batch);
      await new Promise((r) => setImmediate(r));
    }
    c.socket.resume();
    await c.closed;
    const events = c.text().match(/event: notification/g)?.length ?? 0;
    // Dropped part way: it never got everything, and the server did not keep queueing for it.
    expect(events).toBeGreaterThan(0);
    expect(events).toBeLessThan(total);
    expect((await rawRequest(`${t.url}/healthz`)).status).toBe(200);
  });
});

describe('rate limits before the token', () => {
  let t: ListeningApp;
  afterEach(async () => {
    await t?.close();
  });

  it.each([
    ['client API', '/api/v1/client/apps'],
    ['dashboard', '/api/v1/dashboard/projects'],
  ])('%s: guessing tokens is limited per IP', async (_, url) => {
    t = await listenApp(sqlite, { ipRateLimit: 4 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await rawRequest(`${t.url}${url}`, { headers: { authorization: `Bearer guess-${i}` } })).status,
      );
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
  });

  it('admin API: 120 a minute per IP by default; bad tokens count', async () => {
    expect(platformLimitDefaults.adminRateLimit).toBe(120);
    t = await listenApp(sqlite, { adminRateLimit: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push(
        (
          await rawRequest(`${t.url}/api/v1/admin/projects`, {
            headers: { authorization: `Bearer guess-${i}` },
          })
        ).status,
      );
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    const limited = await rawRequest(`${t.url}/api/v1/admin/projects`, {
      headers: { authorization: 'Bearer admin-token-for-tests' },
    });
    expect(limited.status).toBe(429);
    expect(limited.json().message).toMatch(/^rate limit exceeded: 3 requests per minute per IP/);
  });
});
