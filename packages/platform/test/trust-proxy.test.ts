/**
 * Finding 5 of issue 29: behind a reverse proxy, a client writing X-Forwarded-For cannot choose the
 * IP its rate limit counts. The server trusts a hop count or the proxies' addresses — never every
 * hop — so the address the proxy appended is the key, whatever the client put before it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseTrustProxy } from '../src/settings.js';
import { backends, cleanupBackends, type ListeningApp, listenApp, rawRequest } from './helpers.js';

afterAll(cleanupBackends);

const USERS = '/api/v1/notifications/app/users?app_url=https%3A%2F%2Fapp.example.com';
const randomIp = () => [...randomBytes(4)].join('.');

describe('--trust-proxy', () => {
  let t: ListeningApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const get = (forwardedFor: string) =>
    rawRequest(`${t!.url}${USERS}`, { headers: { 'x-api-key': t!.apiKey, 'x-forwarded-for': forwardedFor } });

  it.each([
    ['a hop count', 1],
    ['the proxy’s address', ['127.0.0.1']],
    ['the proxy’s CIDR', ['127.0.0.0/8']],
  ] as const)(
    'trusting %s: a fresh X-Forwarded-For per request does not escape the budget',
    async (_, trustProxy) => {
      t = await listenApp(backends[0]!, { rateLimit: 3, trustProxy: trustProxy as never });
      // What the proxy forwards when the client wrote its own entry: "<client's>, <real address>".
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await get(`${randomIp()}, 198.51.100.7`)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
      // Another real client behind the same proxy has its own budget (the proxy's entry counts).
      expect((await get(`${randomIp()}, 198.51.100.8`)).status).toBe(200);
    },
  );

  it('without --trust-proxy, X-Forwarded-For is ignored: the socket’s peer is the client', async () => {
    t = await listenApp(backends[0]!, { rateLimit: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(randomIp())).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    expect((await get(randomIp())).json()).toMatchObject({ success: false, error: 'Too Many Requests' });
  });

  it('trusting every hop is refused, at start and as a flag', async () => {
    await expect(listenApp(backends[0]!, { trustProxy: true as never })).rejects.toThrow(
      /every X-Forwarded-For hop/,
    );
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => parseTrustProxy('true')).toThrow(/hop count/);
    expect(() => parseTrustProxy('10.0.0.0/33')).toThrow(/prefix length/);
    expect(() => parseTrustProxy('proxy.example')).toThrow(/not an IP address or CIDR/);
  });
});
