/** Every row of the spec's error table, the check order, and the shape of the error body. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { DeliveryUnavailableError } from '../src/index.js';
import { APP_URL, addressOf, backends, cleanupBackends, startApp, type TestApp } from './helpers.js';

afterAll(cleanupBackends);

const SEND = '/api/v1/notifications/send';
const STATUS = '/api/v1/notifications/app/user/status';
const USERS = '/api/v1/notifications/app/users';

const validSend = { app_url: APP_URL, wallet_addresses: [addressOf(1)], title: 'Hello', message: 'World' };

describe.each(backends)('errors on $name', (backend) => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown, key: string | null = t.apiKey) =>
    t.app.inject({ method, url, headers: key === null ? {} : { 'x-api-key': key }, payload: payload as any });

  it('400 Bad Request: each cause names the field and the rule', async () => {
    t = await startApp(backend);
    const cases: Array<[string, 'GET' | 'POST', unknown, string]> = [
      [USERS, 'GET', undefined, 'app_url is required'],
      [STATUS, 'POST', { wallet_address: addressOf(1) }, 'app_url is required'],
      [STATUS, 'POST', { app_url: APP_URL }, 'wallet_address is required'],
      [
        STATUS,
        'POST',
        { app_url: APP_URL, wallet_address: '0x1234' },
        'wallet_address must be a valid address',
      ],
      [SEND, 'POST', { ...validSend, app_url: undefined }, 'app_url is required'],
      [SEND, 'POST', { ...validSend, title: undefined }, 'title is required'],
      [SEND, 'POST', { ...validSend, title: '   ' }, 'title is required'],
      [SEND, 'POST', { ...validSend, title: 'x'.repeat(31) }, 'title must be at most 30 characters'],
      [SEND, 'POST', { ...validSend, message: undefined }, 'message is required'],
      [SEND, 'POST', { ...validSend, message: 'x'.repeat(201) }, 'message must be at most 200 characters'],
      [SEND, 'POST', { ...validSend, wallet_addresses: undefined }, 'wallet_addresses is required'],
      [
        SEND,
        'POST',
        { ...validSend, wallet_addresses: Array.from({ length: 1001 }, (_, i) => addressOf(i + 1)) },
        'wallet_addresses must have at most 1,000 entries',
      ],
      [
        SEND,
        'POST',
        { ...validSend, target_path: `/${'x'.repeat(500)}` },
        'target_path must be at most 500 characters',
      ],
      [SEND, 'POST', { ...validSend, target_path: 'home' }, "target_path must start with '/'"],
    ];
    for (const [url, method, payload, message] of cases) {
      const res = await call(method, url, payload);
      expect(res.statusCode, `${url} ${JSON.stringify(payload)?.slice(0, 80)}`).toBe(400);
      const body = res.json();
      expect(body.success).toBe(false);
      expect(body.error).toBe('Bad Request');
      expect(body.message).toContain(message);
    }
  });

  it('400 for a body that is not JSON', async () => {
    t = await startApp(backend);
    const res = await t.app.inject({
      method: 'POST',
      url: SEND,
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      payload: '{"app_url":',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: 'Bad Request' });
  });

  it('401 Unauthorized: missing or invalid key, on every endpoint', async () => {
    t = await startApp(backend);
    for (const [method, url, payload] of [
      ['GET', `${USERS}?app_url=${APP_URL}`, undefined],
      ['POST', STATUS, { app_url: APP_URL, wallet_address: addressOf(1) }],
      ['POST', SEND, validSend],
    ] as const) {
      for (const key of [null, '', 'wharf_not-a-key', `${t.apiKey}x`]) {
        const res = await call(method, url, payload, key);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ success: false, error: 'Unauthorized', message: expect.any(String) });
        expect(res.body).not.toContain(t.apiKey);
      }
    }
  });

  it('403 Forbidden: app_url not the project’s, or the project not whitelisted', async () => {
    t = await startApp(backend);
    const other = await t.app.platform.admin.createProject({
      name: 'Other',
      appUrl: 'https://other.example.com',
      whitelisted: true,
    });
    // One project's key on another's app URL.
    let res = await call('POST', SEND, { ...validSend, app_url: 'https://other.example.com' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ success: false, error: 'Forbidden' });
    res = await call('POST', SEND, validSend, other.apiKey);
    expect(res.statusCode).toBe(403);
    res = await call('GET', `${USERS}?app_url=${encodeURIComponent('https://other.example.com')}`);
    expect(res.statusCode).toBe(403);
    // An app URL nobody registered.
    res = await call('POST', STATUS, { app_url: 'https://nobody.example.com', wallet_address: addressOf(1) });
    expect(res.statusCode).toBe(403);
    // Not whitelisted.
    await t.app.platform.admin.setWhitelisted(t.projectId, false);
    for (const [method, url, payload] of [
      ['GET', `${USERS}?app_url=${APP_URL}`, undefined],
      ['POST', STATUS, { app_url: APP_URL, wallet_address: addressOf(1) }],
      ['POST', SEND, validSend],
    ] as const) {
      res = await call(method, url, payload);
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toContain('not whitelisted');
    }
  });

  it('app URLs compare after normalization', async () => {
    t = await startApp(backend);
    const res = await call('POST', STATUS, {
      app_url: 'HTTPS://App.Example.com:443/',
      wallet_address: addressOf(1),
    });
    expect(res.statusCode).toBe(200);
  });

  it('404 Not Found: a deleted project’s key, from that moment on', async () => {
    t = await startApp(backend);
    expect((await call('POST', SEND, validSend)).statusCode).toBe(200);
    await t.app.platform.admin.deleteProject(t.projectId);
    const res = await call('POST', SEND, validSend);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: 'Not Found' });
    // 404 comes before 400.
    expect((await call('POST', SEND, {})).statusCode).toBe(404);
  });

  it('500 Internal Server Error: the preferences store fails (status endpoint)', async () => {
    t = await startApp(backend, {
      preferences: (store) => ({
        ...bind(store),
        statusOf: async () => {
          throw new Error('preferences service down');
        },
      }),
    });
    const res = await call('POST', STATUS, { app_url: APP_URL, wallet_address: addressOf(1) });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      success: false,
      error: 'Internal Server Error',
      message: expect.stringContaining('preferences'),
    });
    expect(res.body).not.toContain('preferences service down');
  });

  it('503 Service Unavailable with Retry-After: the delivery path is unavailable (send)', async () => {
    t = await startApp(backend, {
      delivery: (path) => ({
        openWindows: (keys, now) => path.openWindows(keys, now),
        deliver: async () => {
          throw new DeliveryUnavailableError('inbox down', 7);
        },
      }),
    });
    await t.pin(addressOf(1));
    const res = await call('POST', SEND, validSend);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.json()).toMatchObject({ success: false, error: 'Service Unavailable' });
  });

  it('a failed delivery does not start a dedupe window', async () => {
    let fail = true;
    t = await startApp(backend, {
      delivery: (path) => ({
        openWindows: (keys, now) => path.openWindows(keys, now),
        deliver: async (notifications, options) => {
          if (fail) throw new Error('database connection lost');
          return path.deliver(notifications, options);
        },
      }),
    });
    await t.pin(addressOf(1));
    expect((await call('POST', SEND, validSend)).statusCode).toBe(503);
    fail = false;
    expect((await call('POST', SEND, validSend)).json()).toMatchObject({ success: true, sentCount: 1 });
    const inbox = await t.app.platform.database.db.selectFrom('notifications').selectAll().execute();
    expect(inbox).toHaveLength(1);
  });

  it('check order: 429 before 401, 401 before 400, 400 before 403', async () => {
    t = await startApp(backend, { rateLimit: 2 });
    const foreign = { ...validSend, app_url: 'https://nobody.example.com', title: 'x'.repeat(31) };
    expect((await call('POST', SEND, foreign, null)).statusCode).toBe(401);
    expect((await call('POST', SEND, foreign)).statusCode).toBe(400);
    expect((await call('POST', SEND, foreign, null)).statusCode).toBe(429);
  });

  it('unknown API paths answer the error body', async () => {
    t = await startApp(backend);
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, error: 'Not Found' });
  });
});

/** The store's methods bound to it, so a test can replace one. */
function bind<T extends object>(store: T): T {
  const proto = Object.getPrototypeOf(store);
  const out: Record<string, unknown> = {};
  for (const name of Object.getOwnPropertyNames(proto)) {
    const value = (store as any)[name];
    if (name !== 'constructor' && typeof value === 'function') out[name] = value.bind(store);
  }
  return out as T;
}
