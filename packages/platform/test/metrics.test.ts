/**
 * GET /metrics in Prometheus' text format (prom-client): the process defaults, every answer by
 * method, route pattern and status, the notifications stored, the open live streams. No
 * address, key or app URL appears in it.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, afterEach, expect, it } from 'vitest';
import { APP_URL, addressOf, backends, cleanupBackends, type ListeningApp, listenApp } from './helpers.js';

afterAll(cleanupBackends);

const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
let t: ListeningApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** The value of one series, e.g. `wharf_platform_notifications_stored_total`. */
function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

async function signIn(base: string): Promise<string> {
  const { nonce } = (await (await fetch(`${base}/api/v1/client/auth/nonce`, { method: 'POST' })).json()) as {
    nonce: string;
  };
  const message = createSiweMessage({
    address: alice.address,
    chainId: 31337,
    domain: new URL(base).host,
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

it('counts answers by route pattern and status, notifications stored, and open streams', async () => {
  t = await listenApp(backends[0]!);
  const before = await scrape(t.url);
  expect(before).toContain('# TYPE process_resident_memory_bytes gauge');
  expect(before).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  expect(value(before, 'wharf_platform_open_streams')).toBe(0);
  expect(value(before, 'wharf_platform_notifications_stored_total')).toBe(0);

  const send = (key: string, to: string[]) =>
    fetch(`${t!.url}/api/v1/notifications/send`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ app_url: APP_URL, wallet_addresses: to, title: 'Hi', message: 'there' }),
    });
  await t.pin(addressOf(1));
  await t.pin(addressOf(2));
  expect((await send(t.apiKey, [addressOf(1), addressOf(2), addressOf(3)])).status).toBe(200);
  expect((await send(t.apiKey, [addressOf(1)])).status).toBe(200); // a duplicate: not stored again
  expect((await send('wharf_nope', [addressOf(1)])).status).toBe(401);
  expect((await fetch(`${t.url}/api/v1/no-such-route`)).status).toBe(404);

  const token = await signIn(t.url);
  const stream = new AbortController();
  const open = await fetch(`${t.url}/api/v1/client/notifications/stream`, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: stream.signal,
  });
  expect(open.status).toBe(200);

  const after = await scrape(t.url);
  const sendRoute = 'method="POST",route="/api/v1/notifications/send"';
  expect(value(after, `wharf_platform_http_requests_total{${sendRoute},status="200"}`)).toBe(2);
  expect(value(after, `wharf_platform_http_requests_total{${sendRoute},status="401"}`)).toBe(1);
  expect(
    value(after, 'wharf_platform_http_requests_total{method="GET",route="unmatched",status="404"}'),
  ).toBe(1);
  expect(value(after, `wharf_platform_http_request_duration_seconds_count{${sendRoute}}`)).toBe(3);
  expect(value(after, 'wharf_platform_notifications_stored_total')).toBe(2);
  expect(value(after, 'wharf_platform_sends_total{sent_by="key"}')).toBe(2);
  expect(value(after, 'wharf_platform_open_streams')).toBe(1);
  for (const secret of [t.apiKey, token, APP_URL, addressOf(1), alice.address])
    expect(after.toLowerCase()).not.toContain(secret.toLowerCase());

  stream.abort();
  await expect.poll(async () => value(await scrape(t!.url), 'wharf_platform_open_streams')).toBe(0);
});
