/**
 * The SDK against an in-memory stand-in of the API (the SDK may import nothing of ours, so the
 * real server is exercised by the notifications package's own tests): request shapes, errors,
 * the users iterator, sendToAll's batches of 1,000, and retries that honour Retry-After.
 */
import { describe, expect, it } from 'vitest';
import { createNotificationsClient, MAX_ADDRESSES_PER_REQUEST, WharfApiError } from '../src/index.js';

interface Call {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: any;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function fakeApi(handler: (call: Call) => Response | Promise<Response>) {
  const calls: Call[] = [];
  const fetchImpl = (async (input: string | URL, init?: RequestInit) => {
    const call: Call = {
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>)),
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    };
    calls.push(call);
    return handler(call);
  }) as typeof fetch;
  return { calls, fetchImpl };
}

const addressOf = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const sleeps: number[] = [];
const fakeSleep = async (ms: number) => {
  sleeps.push(ms);
};

describe('@wharf/sdk', () => {
  it('sends the key header and snake_case bodies to the spec’s paths', async () => {
    const { calls, fetchImpl } = fakeApi((call) => {
      if (call.url.pathname.endsWith('/status'))
        return json(200, { appPinned: true, notificationsEnabled: false });
      if (call.url.pathname.endsWith('/send')) {
        return json(200, {
          success: true,
          results: [{ walletAddress: addressOf(1), sent: true }],
          sentCount: 1,
          failedCount: 0,
        });
      }
      return json(200, { success: true, users: [] });
    });
    const client = createNotificationsClient({ baseUrl: 'http://host:3000/', apiKey: 'k', fetch: fetchImpl });
    expect(await client.userStatus({ appUrl: 'https://a.example', walletAddress: addressOf(1) })).toEqual({
      appPinned: true,
      notificationsEnabled: false,
    });
    await client.send({
      appUrl: 'https://a.example',
      walletAddresses: [addressOf(1)],
      title: 't',
      message: 'm',
      targetPath: '/x',
    });
    await client.listUsers({
      appUrl: 'https://a.example',
      notificationEnabled: true,
      limit: 10,
      cursor: 'abc',
    });
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /api/v1/notifications/app/user/status',
      'POST /api/v1/notifications/send',
      'GET /api/v1/notifications/app/users',
    ]);
    expect(calls.every((c) => c.headers['x-api-key'] === 'k')).toBe(true);
    expect(calls[0]!.body).toEqual({ app_url: 'https://a.example', wallet_address: addressOf(1) });
    expect(calls[1]!.body).toEqual({
      app_url: 'https://a.example',
      wallet_addresses: [addressOf(1)],
      title: 't',
      message: 'm',
      target_path: '/x',
    });
    expect(Object.fromEntries(calls[2]!.url.searchParams)).toEqual({
      app_url: 'https://a.example',
      notification_enabled: 'true',
      limit: '10',
      cursor: 'abc',
    });
  });

  it('throws WharfApiError with the status, the spec’s code and the message', async () => {
    const { fetchImpl } = fakeApi(() =>
      json(400, { success: false, error: 'Bad Request', message: 'title must be at most 30 characters' }),
    );
    const client = createNotificationsClient({ baseUrl: 'http://h', apiKey: 'k', fetch: fetchImpl });
    const error = await client
      .send({ appUrl: 'https://a', walletAddresses: [addressOf(1)], title: 'x'.repeat(31), message: 'm' })
      .catch((e) => e);
    expect(error).toBeInstanceOf(WharfApiError);
    expect(error).toMatchObject({
      status: 400,
      error: 'Bad Request',
      message: 'title must be at most 30 characters',
    });
  });

  it('users() walks every page', async () => {
    const all = Array.from({ length: 1234 }, (_, i) => ({
      address: addressOf(i + 1),
      notificationsEnabled: i % 2 === 0,
    }));
    const { calls, fetchImpl } = fakeApi((call) => {
      const start = Number(call.url.searchParams.get('cursor') ?? 0);
      const limit = Number(call.url.searchParams.get('limit'));
      const users = all.slice(start, start + limit);
      const next = start + limit < all.length ? { nextCursor: String(start + limit) } : {};
      return json(200, { success: true, users, ...next });
    });
    const client = createNotificationsClient({ baseUrl: 'http://h', apiKey: 'k', fetch: fetchImpl });
    const seen = [];
    for await (const user of client.users({ appUrl: 'https://a' })) seen.push(user);
    expect(seen).toEqual(all);
    expect(calls).toHaveLength(3);
    expect(calls[0]!.url.searchParams.get('limit')).toBe('500');
  });

  it('sendToAll splits any audience into requests of 1,000 after removing duplicates', async () => {
    const { calls, fetchImpl } = fakeApi((call) => {
      const results = call.body.wallet_addresses.map((a: string, i: number) =>
        i === 0
          ? { walletAddress: a, sent: false, failureReason: 'user has not saved this app' }
          : { walletAddress: a, sent: true },
      );
      return json(200, {
        success: false,
        results,
        sentCount: results.length - 1,
        failedCount: 1,
      });
    });
    const client = createNotificationsClient({ baseUrl: 'http://h', apiKey: 'k', fetch: fetchImpl });
    async function* audience() {
      for (let i = 1; i <= 2500; i++) yield addressOf(i);
      yield addressOf(5).toUpperCase().replace('0X', '0x'); // a duplicate in another case
    }
    const batches: number[] = [];
    const result = await client.sendToAll({
      appUrl: 'https://a',
      walletAddresses: audience(),
      title: 't',
      message: 'm',
      onBatch: (_r, b) => batches.push(b.size),
    });
    expect(MAX_ADDRESSES_PER_REQUEST).toBe(1000);
    expect(calls.map((c) => c.body.wallet_addresses.length)).toEqual([1000, 1000, 500]);
    expect(batches).toEqual([1000, 1000, 500]);
    expect(result).toMatchObject({ success: false, requests: 3, sentCount: 2497, failedCount: 3 });
    expect(result.results).toHaveLength(2500);
  });

  it('retries 429 and 503 after Retry-After; gives up after the configured retries', async () => {
    sleeps.length = 0;
    let n = 0;
    const { calls, fetchImpl } = fakeApi(() => {
      n++;
      if (n === 1)
        return json(
          429,
          { success: false, error: 'Too Many Requests', message: 'slow down' },
          { 'retry-after': '42' },
        );
      if (n === 2)
        return json(
          503,
          { success: false, error: 'Service Unavailable', message: 'retry' },
          { 'retry-after': '3' },
        );
      return json(200, { appPinned: false, notificationsEnabled: false });
    });
    const client = createNotificationsClient({
      baseUrl: 'http://h',
      apiKey: 'k',
      fetch: fetchImpl,
      sleep: fakeSleep,
    });
    expect(await client.userStatus({ appUrl: 'https://a', walletAddress: addressOf(1) })).toEqual({
      appPinned: false,
      notificationsEnabled: false,
    });
    expect(calls).toHaveLength(3);
    expect(sleeps).toEqual([42_000, 3_000]);

    sleeps.length = 0;
    const always = fakeApi(() =>
      json(503, { success: false, error: 'Service Unavailable', message: 'down' }),
    );
    const limited = createNotificationsClient({
      baseUrl: 'http://h',
      apiKey: 'k',
      fetch: always.fetchImpl,
      sleep: fakeSleep,
      retry: { retries: 2, baseDelayMs: 100 },
    });
    const error = await limited
      .userStatus({ appUrl: 'https://a', walletAddress: addressOf(1) })
      .catch((e) => e);
    expect(error).toMatchObject({ status: 503, error: 'Service Unavailable' });
    expect(always.calls).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]); // no Retry-After: exponential backoff

    // Other errors are not retried.
    const bad = fakeApi(() =>
      json(401, { success: false, error: 'Unauthorized', message: 'x-api-key header is required' }),
    );
    const once = createNotificationsClient({
      baseUrl: 'http://h',
      apiKey: '',
      fetch: bad.fetchImpl,
      sleep: fakeSleep,
    });
    await expect(once.listUsers({ appUrl: 'https://a' })).rejects.toMatchObject({ status: 401 });
    expect(bad.calls).toHaveLength(1);
  });
});
