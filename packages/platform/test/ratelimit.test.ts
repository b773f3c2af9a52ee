/** Rate limit: 20 a minute per client IP, one budget over the three endpoints, sliding, shared via Redis. */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MemoryRateLimitStore } from '../src/ratelimit/store.js';
import {
  APP_URL,
  addressOf,
  backends,
  cleanupBackends,
  requireRedis,
  startApp,
  type TestApp,
} from './helpers.js';

afterAll(cleanupBackends);

const USERS = `/api/v1/notifications/app/users?app_url=${encodeURIComponent(APP_URL)}`;
const STATUS = '/api/v1/notifications/app/user/status';
const SEND = '/api/v1/notifications/send';

const sqlite = backends[0]!;
const redisUrl = requireRedis();

describe('rate limit (memory store)', () => {
  const apps: TestApp[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
  });

  it('the 21st request in a minute is 429 with Retry-After; one budget across the three endpoints', async () => {
    const t = await startApp(sqlite, { rateLimit: 20 });
    apps.push(t);
    const headers = { 'x-api-key': t.apiKey };
    const requests = [
      () => t.app.inject({ method: 'GET', url: USERS, headers }),
      () =>
        t.app.inject({
          method: 'POST',
          url: STATUS,
          headers,
          payload: { app_url: APP_URL, wallet_address: addressOf(1) },
        }),
      () =>
        t.app.inject({
          method: 'POST',
          url: SEND,
          headers,
          payload: { app_url: APP_URL, wallet_addresses: [addressOf(1)], title: 't', message: 'm' },
        }),
    ];
    for (let i = 0; i < 20; i++) {
      const res = await requests[i % 3]!();
      expect(res.statusCode, `request ${i + 1}`).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('20');
      expect(res.headers['ratelimit-remaining']).toBe(String(19 - i));
      expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    }
    for (const request of requests) {
      const res = await request();
      expect(res.statusCode).toBe(429);
      expect(res.json()).toMatchObject({ success: false, error: 'Too Many Requests' });
      expect(res.headers['ratelimit-remaining']).toBe('0');
      const retry = Number(res.headers['retry-after']);
      expect(retry).toBeGreaterThanOrEqual(59);
      expect(retry).toBeLessThanOrEqual(60);
    }
    // Another IP has its own budget; the health check and the OpenAPI document have none.
    const other = await t.app.inject({ method: 'GET', url: USERS, headers, remoteAddress: '10.0.0.9' });
    expect(other.statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).statusCode).toBe(200);
  });

  it('the window slides: a burst across a minute boundary does not get a second budget', async () => {
    let now = Date.parse('2026-01-01T00:00:59.000Z');
    const store = new MemoryRateLimitStore(() => now);
    for (let i = 0; i < 20; i++) expect((await store.hit('ip', 20, 60_000)).allowed).toBe(true);
    now += 1500; // past the clock's minute boundary
    const denied = await store.hit('ip', 20, 60_000);
    expect(denied.allowed).toBe(false);
    expect(denied.resetMs).toBe(58_500);
    now += 58_499;
    expect((await store.hit('ip', 20, 60_000)).allowed).toBe(false);
    now += 1; // the burst leaves the window, 60 s after it came
    for (let i = 0; i < 20; i++) expect((await store.hit('ip', 20, 60_000)).allowed).toBe(true);
    expect((await store.hit('ip', 20, 60_000)).allowed).toBe(false);
  });

  it('X-Forwarded-For only counts with trustProxy', async () => {
    const plain = await startApp(sqlite, { rateLimit: 1 });
    const proxied = await startApp(sqlite, { rateLimit: 1, trustProxy: 1 });
    apps.push(plain, proxied);
    const get = (t: TestApp, ip: string) =>
      t.app.inject({ method: 'GET', url: USERS, headers: { 'x-api-key': t.apiKey, 'x-forwarded-for': ip } });
    expect((await get(plain, '1.1.1.1')).statusCode).toBe(200);
    expect((await get(plain, '2.2.2.2')).statusCode).toBe(429); // spoofed header ignored
    expect((await get(proxied, '1.1.1.1')).statusCode).toBe(200);
    expect((await get(proxied, '2.2.2.2')).statusCode).toBe(200);
    expect((await get(proxied, '2.2.2.2')).statusCode).toBe(429);
  });
});

describe.skipIf(!redisUrl)('rate limit (Redis store)', () => {
  it('two instances share one budget', async () => {
    const redisKeyPrefix = `wharf-test-${randomBytes(4).toString('hex')}:`;
    const a = await startApp(sqlite, { rateLimit: 20, redisUrl, redisKeyPrefix });
    const b = await startApp(sqlite, { rateLimit: 20, redisUrl, redisKeyPrefix });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 21; i++) {
        const t = i % 2 === 0 ? a : b;
        const res = await t.app.inject({ method: 'GET', url: USERS, headers: { 'x-api-key': t.apiKey } });
        statuses.push(res.statusCode);
        if (i < 20) expect(res.headers['ratelimit-remaining']).toBe(String(19 - i));
        else expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
      expect(statuses[20]).toBe(429);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('Redis unreachable', () => {
  it('startup fails with a message naming Redis', async () => {
    await expect(startApp(sqlite, { redisUrl: 'redis://127.0.0.1:1' })).rejects.toThrow(/cannot reach Redis/);
  }, 15_000);
});
