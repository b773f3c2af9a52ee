/** Live delivery: the SSE stream, resume from Last-Event-ID, and two instances over Redis. */
import { randomBytes } from 'node:crypto';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlatformApp, type PlatformServerOptions } from '../src/index.js';
import { APP_URL, backends, baseOptions, cleanupBackends, requireRedis } from './helpers.js';

afterAll(cleanupBackends);

const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const redisUrl = requireRedis();

interface Instance {
  url: string;
  close(): Promise<void>;
  app: Awaited<ReturnType<typeof buildPlatformApp>>;
}

async function listen(options: PlatformServerOptions): Promise<Instance> {
  const app = await buildPlatformApp(options);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

async function signIn(base: string): Promise<string> {
  const { nonce } = (await (await fetch(`${base}/api/v1/client/auth/nonce`, { method: 'POST' })).json()) as {
    nonce: string;
  };
  const host = new URL(base).host;
  const message = createSiweMessage({
    address: alice.address,
    chainId: 31337,
    domain: host,
    nonce,
    uri: `${base}/`,
    version: '1',
  });
  const res = await fetch(`${base}/api/v1/client/auth/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message, signature: await alice.signMessage({ message }) }),
  });
  return ((await res.json()) as { token: string }).token;
}

interface SseEvent {
  id: string;
  event: string;
  data: any;
  receivedAt: number;
}

/** Opens the stream; events arrive in `events`. */
function openStream(base: string, token: string, lastEventId?: string) {
  const controller = new AbortController();
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  const ready = (async () => {
    const res = await fetch(`${base}/api/v1/client/notifications/stream`, {
      headers: { authorization: `Bearer ${token}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal: controller.signal,
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          let end = buffer.indexOf('\n\n');
          while (end >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const fields: Record<string, string> = {};
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue;
              const i = line.indexOf(':');
              if (i > 0) fields[line.slice(0, i)] = line.slice(i + 1).trimStart();
            }
            if (fields.event === 'notification') {
              events.push({
                id: fields.id!,
                event: fields.event,
                data: JSON.parse(fields.data!),
                receivedAt: Date.now(),
              });
              for (const w of waiters.splice(0)) w();
            }
            end = buffer.indexOf('\n\n');
          }
        }
      } catch {
        // aborted
      }
    })();
  })();
  return {
    events,
    ready,
    async waitFor(n: number, timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} events, got ${events.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return events;
    },
    close: () => controller.abort(),
  };
}

async function send(base: string, apiKey: string, title: string) {
  const res = await fetch(`${base}/api/v1/notifications/send`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ app_url: APP_URL, wallet_addresses: [alice.address], title, message: 'm' }),
  });
  expect(res.status).toBe(200);
  return Date.now();
}

describe.each(backends)('notification stream on $name', (backend) => {
  it('pushes each delivered notification within 100 ms and resumes from Last-Event-ID', async () => {
    const store = await backend.fresh();
    const server = await listen({ ...baseOptions, ...store, sseHeartbeatMs: 200 });
    try {
      const { apiKey } = await server.app.platform.admin.createProject({
        name: 'A',
        appUrl: APP_URL,
        whitelisted: true,
      });
      const token = await signIn(server.url);
      await fetch(`${server.url}/api/v1/client/apps/pin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ app_url: APP_URL }),
      });
      const stream = openStream(server.url, token);
      await stream.ready;
      await new Promise((r) => setTimeout(r, 50));
      const sentAt = await send(server.url, apiKey, 'first');
      const [first] = await stream.waitFor(1);
      expect(first!.data).toMatchObject({ title: 'first', appUrl: APP_URL, readAt: null });
      expect(first!.receivedAt - sentAt).toBeLessThan(100);
      stream.close();

      // While disconnected, two more arrive in the inbox.
      await send(server.url, apiKey, 'second');
      await send(server.url, apiKey, 'third');
      const resumed = openStream(server.url, token, first!.id);
      await resumed.ready;
      const events = await resumed.waitFor(2);
      expect(events.map((e) => e.data.title)).toEqual(['second', 'third']);
      await send(server.url, apiKey, 'fourth');
      expect((await resumed.waitFor(3)).map((e) => e.data.title)).toEqual(['second', 'third', 'fourth']);
      expect(new Set(events.map((e) => e.id)).size).toBe(3);
      resumed.close();

      // Without a token: 401.
      expect((await fetch(`${server.url}/api/v1/client/notifications/stream`)).status).toBe(401);
    } finally {
      await server.close();
    }
  });
});

const postgresBackend = backends.find((b) => b.name === 'postgres');
describe.skipIf(!redisUrl || !postgresBackend)('two instances over PostgreSQL and Redis', () => {
  it('a notification sent through one instance reaches a client connected to the other', async () => {
    const store = await postgresBackend!.fresh();
    const shared = {
      ...baseOptions,
      ...store,
      redisUrl,
      redisKeyPrefix: `wharf-test-${randomBytes(4).toString('hex')}:`,
    };
    const a = await listen(shared);
    const b = await listen(shared);
    try {
      const { apiKey } = await a.app.platform.admin.createProject({
        name: 'A',
        appUrl: APP_URL,
        whitelisted: true,
      });
      const token = await signIn(a.url);
      await fetch(`${a.url}/api/v1/client/apps/pin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ app_url: APP_URL }),
      });
      await (a.app.platform.fanout as any).whenReady?.();
      const stream = openStream(a.url, token);
      await stream.ready;
      await new Promise((r) => setTimeout(r, 100));
      const sentAt = await send(b.url, apiKey, 'across');
      const [event] = await stream.waitFor(1);
      expect(event!.data.title).toBe('across');
      expect(event!.receivedAt - sentAt).toBeLessThan(500);
      stream.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
});
