/**
 * Redis down, PostgreSQL down (docs/decisions/0171, 0172): two platform instances on a Redis and a
 * PostgreSQL of the test's own, stopped and started again under them. Redis down: sends are still
 * stored and answered, limits count per instance, /readyz says so, and the push arrives once Redis
 * is back. PostgreSQL down: 503 with the spec's body, nothing stored, /readyz says so, and the
 * same instance serves again once PostgreSQL is back. No restart of the instances.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { buildPlatformApp } from '../src/index.js';
import { addressOf, baseOptions } from './helpers.js';
import {
  haveThrowawayServices,
  startThrowawayPostgres,
  startThrowawayRedis,
  type ThrowawayPostgres,
  type ThrowawayRedis,
} from './throwawayServices.js';

const APP_URL = 'https://outage.example.com';
const wallet = privateKeyToAccount(generatePrivateKey());
const recipients = [wallet.address, addressOf(2), addressOf(3)];

/** Signs `wallet` in on `base` and collects the titles its notification stream receives. */
async function openStream(base: string): Promise<{ titles: string[]; close(): void }> {
  const post = async (path: string, body?: unknown) =>
    (
      await fetch(`${base}${path}`, {
        method: 'POST',
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      })
    ).json() as Promise<any>;
  const { nonce } = await post('/api/v1/client/auth/nonce');
  const message = createSiweMessage({
    address: wallet.address,
    chainId: 31337,
    domain: new URL(base).host,
    nonce,
    uri: `${base}/`,
    version: '1',
  });
  const { token } = await post('/api/v1/client/auth/verify', {
    message,
    signature: await wallet.signMessage({ message }),
  });
  const controller = new AbortController();
  const res = await fetch(`${base}/api/v1/client/notifications/stream`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  expect(res.status).toBe(200);
  const titles: string[] = [];
  void (async () => {
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += Buffer.from(chunk).toString('utf8');
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (data) titles.push((JSON.parse(data) as { title: string }).title);
        }
      }
    } catch {
      // Closed by the test.
    }
  })();
  return { titles, close: () => controller.abort() };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!haveThrowawayServices)('when Redis or PostgreSQL goes away', () => {
  let postgres: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let a: FastifyInstance;
  let b: FastifyInstance;
  let apiKey: string;

  const send = (title: string, ip = '10.0.0.1') =>
    a.inject({
      method: 'POST',
      url: '/api/v1/notifications/send',
      remoteAddress: ip,
      headers: { 'x-api-key': apiKey },
      payload: { app_url: APP_URL, wallet_addresses: recipients, title, message: 'outage test' },
    });
  const stored = async (title: string) =>
    (
      await a.platform.database.db
        .selectFrom('notifications')
        .select('id')
        .where('title', '=', title)
        .execute()
    ).length;
  const readyz = async () => {
    const res = await a.inject({ method: 'GET', url: '/readyz' });
    return { status: res.statusCode, body: res.json() };
  };

  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()]);
    const options = {
      ...baseOptions,
      dataDir: '',
      databaseUrl: postgres.url,
      redisUrl: redis.url,
      outboxLeaseMs: 500,
      rateLimit: 5,
    };
    a = await buildPlatformApp(options);
    b = await buildPlatformApp(options);
    await b.listen({ host: '127.0.0.1', port: 0 });
    const project = await a.platform.admin.createProject({
      name: 'Outage',
      appUrl: APP_URL,
      whitelisted: true,
    });
    apiKey = project.apiKey;
    for (const [i, address] of recipients.entries())
      await a.platform.preferences.pin(APP_URL, address, { notificationsEnabled: true, now: Date.now() + i });
  }, 120_000);

  afterAll(async () => {
    await Promise.allSettled([a?.close(), b?.close()]);
    await redis?.stop();
    postgres?.destroy();
  }, 60_000);

  it('is ready while both answer; /healthz is liveness only', async () => {
    expect(await readyz()).toEqual({
      status: 200,
      body: { ready: true, checks: { database: 'ok', redis: 'ok' } },
    });
    expect((await a.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('Redis down: stores and answers sends, counts limits per instance, pushes once Redis is back', async () => {
    const address = b.server.address();
    const stream = await openStream(
      `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    );
    await redis.stop();
    const notReady = await until('readyz reports Redis', async () => {
      const r = await readyz();
      return r.status === 503 ? r : undefined;
    });
    expect(notReady.body).toEqual({ ready: false, checks: { database: 'ok', redis: 'unavailable' } });
    expect((await a.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    const answer = await send('during the Redis outage', '10.0.1.1');
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ success: true, sentCount: 3, failedCount: 0 });
    expect(await stored('during the Redis outage')).toBe(3);

    // The budget (5 a minute here) is counted by this instance alone while Redis is away.
    const users = () =>
      a.inject({
        method: 'GET',
        url: `/api/v1/notifications/app/users?app_url=${encodeURIComponent(APP_URL)}`,
        remoteAddress: '10.0.1.1',
        headers: { 'x-api-key': apiKey },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await users()).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect(stream.titles).toEqual([]);

    await redis.start();
    await until('readyz again', async () => ((await readyz()).status === 200 ? true : undefined));
    // On the stream of a client of instance B: from A's outbox relay, or B's re-read of the inbox
    // when it heard Redis again (whichever comes first; the stream writes it once).
    await until('the push made during the outage', async () =>
      stream.titles.includes('during the Redis outage') ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 1_000)); // past the outbox lease: no second copy
    expect(stream.titles.filter((t) => t === 'during the Redis outage')).toHaveLength(1);
    stream.close();
  }, 60_000);

  it('PostgreSQL down: 503 with the spec body, nothing stored, /readyz says so; serves again once it is back', async () => {
    postgres.stop();
    const refused = await send('during the PostgreSQL outage', '10.0.2.1');
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({
      success: false,
      error: 'Service Unavailable',
      message: expect.stringMatching(/temporarily unavailable; retry/),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    for (const request of [
      {
        method: 'GET' as const,
        url: `/api/v1/notifications/app/users?app_url=${encodeURIComponent(APP_URL)}`,
      },
      {
        method: 'POST' as const,
        url: '/api/v1/notifications/app/user/status',
        payload: { app_url: APP_URL, wallet_address: recipients[0] },
      },
    ]) {
      const res = await a.inject({ ...request, remoteAddress: '10.0.2.2', headers: { 'x-api-key': apiKey } });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ success: false, error: 'Service Unavailable' });
    }
    const notReady = await readyz();
    expect(notReady).toEqual({
      status: 503,
      body: { ready: false, checks: { database: 'unavailable', redis: 'ok' } },
    });

    postgres.start();
    await until('readyz again', async () => ((await readyz()).status === 200 ? true : undefined));
    expect(await stored('during the PostgreSQL outage')).toBe(0);
    const retried = await send('during the PostgreSQL outage', '10.0.2.3');
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ success: true, sentCount: 3 });
    expect(await stored('during the PostgreSQL outage')).toBe(3);
  }, 60_000);
});
