/** The client API: SIWE sign-in, the state table through HTTP, the inbox, isolation between users. */
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  APP_URL,
  addressOf,
  backends,
  cleanupBackends,
  startApp as startHelperApp,
  type TestApp,
} from './helpers.js';

afterAll(cleanupBackends);

const HOST = 'platform.test';
/** The platform's configured public origin in these tests: SIWE messages name it. */
const startApp: typeof startHelperApp = (backend, overrides = {}, project = {}) =>
  startHelperApp(backend, { publicUrl: `http://${HOST}`, ...overrides }, project);
const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');

type Account = typeof alice;

async function signInMessage(t: TestApp, account: Account, overrides: Record<string, unknown> = {}) {
  const { nonce } = (
    await t.app.inject({ method: 'POST', url: '/api/v1/client/auth/nonce', headers: { host: HOST } })
  ).json();
  const message = createSiweMessage({
    address: account.address,
    chainId: 31337,
    domain: HOST,
    nonce,
    uri: `http://${HOST}/`,
    version: '1',
    issuedAt: new Date(),
    ...overrides,
  } as any);
  return { message, signature: await account.signMessage({ message }) };
}

async function verify(t: TestApp, body: { message: string; signature: string }) {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/client/auth/verify',
    headers: { host: HOST },
    payload: body,
  });
}

async function signIn(t: TestApp, account: Account): Promise<string> {
  const res = await verify(t, await signInMessage(t, account));
  expect(res.statusCode).toBe(200);
  return res.json().token;
}

describe.each(backends)('client API on $name', (backend) => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  const as = (token: string) => ({
    get: (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } }),
    post: (url: string, payload: unknown) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${token}` },
        payload: payload as any,
      }),
  });

  it('signs in with SIWE; refuses a wrong domain, a reused nonce, an expired message, another key’s signature', async () => {
    t = await startApp(backend);
    const good = await signInMessage(t, alice);
    const ok = await verify(t, good);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      address: alice.address,
      token: expect.any(String),
      expiresAt: expect.any(String),
    });

    const reused = await verify(t, good);
    expect(reused.statusCode).toBe(401);
    expect(reused.json().message).toContain('nonce');

    const wrongDomain = await signInMessage(t, alice, { domain: 'evil.test', uri: 'http://evil.test/' });
    expect((await verify(t, wrongDomain)).json()).toMatchObject({
      error: 'Unauthorized',
      message: expect.stringContaining('domain'),
    });

    const wrongChain = await signInMessage(t, alice, { chainId: 1 });
    expect((await verify(t, wrongChain)).statusCode).toBe(401);

    const expired = await signInMessage(t, alice, { expirationTime: new Date(Date.now() - 1000) });
    expect((await verify(t, expired)).json().message).toContain('expired');

    const forged = await signInMessage(t, alice);
    const byBob = { message: forged.message, signature: await bob.signMessage({ message: forged.message }) };
    expect((await verify(t, byBob)).json().message).toContain('signature');
    // The nonce is spent before the signature is checked (a nonce buys one signature check,
    // which may be an eth_call): alice's own signature now needs a fresh one.
    expect((await verify(t, forged)).json().message).toContain('nonce');
    expect((await verify(t, await signInMessage(t, alice))).statusCode).toBe(200);

    const unknownNonce = createSiweMessage({
      address: alice.address,
      chainId: 31337,
      domain: HOST,
      nonce: 'abcdefgh12345678',
      uri: `http://${HOST}/`,
      version: '1',
    });
    const res = await verify(t, {
      message: unknownNonce,
      signature: await alice.signMessage({ message: unknownNonce }),
    });
    expect(res.statusCode).toBe(401);

    expect((await verify(t, { message: '', signature: '0x' })).statusCode).toBe(400);
    expect((await as('nope').get('/api/v1/client/apps')).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/client/apps' })).statusCode).toBe(401);
  });

  it('the state table through HTTP, reflected at once by the developer API', async () => {
    t = await startApp(backend);
    const token = await signIn(t, alice);
    const user = as(token);
    const status = async () =>
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/notifications/app/user/status',
          headers: { 'x-api-key': t.apiKey },
          payload: { app_url: APP_URL, wallet_address: alice.address },
        })
      ).json();
    const notif = (enabled: boolean) =>
      user.post('/api/v1/client/apps/notifications', { app_url: APP_URL, enabled });

    expect(await status()).toEqual({ appPinned: false, notificationsEnabled: false });
    expect((await notif(true)).statusCode).toBe(409); // not pinned
    let res = await user.post('/api/v1/client/apps/pin', { app_url: 'https://APP.example.com/' });
    expect(res.json()).toEqual({ appUrl: APP_URL, appPinned: true, notificationsEnabled: true });
    expect(await status()).toEqual({ appPinned: true, notificationsEnabled: true });
    expect(
      (await user.post('/api/v1/client/apps/pin', { app_url: APP_URL })).json().notificationsEnabled,
    ).toBe(true);
    expect((await notif(false)).json()).toEqual({
      appUrl: APP_URL,
      appPinned: true,
      notificationsEnabled: false,
    });
    expect((await notif(false)).statusCode).toBe(200); // idempotent
    expect(await status()).toEqual({ appPinned: true, notificationsEnabled: false });
    // Pinning a pinned app does not change its opt-in.
    expect(
      (await user.post('/api/v1/client/apps/pin', { app_url: APP_URL })).json().notificationsEnabled,
    ).toBe(false);
    expect((await notif(true)).statusCode).toBe(200);
    res = await user.post('/api/v1/client/apps/unpin', { app_url: APP_URL });
    expect(res.json()).toEqual({ appUrl: APP_URL, appPinned: false, notificationsEnabled: false });
    expect((await user.post('/api/v1/client/apps/unpin', { app_url: APP_URL })).statusCode).toBe(200);
    expect(await status()).toEqual({ appPinned: false, notificationsEnabled: false });
    // Pin with notifications off.
    res = await user.post('/api/v1/client/apps/pin', { app_url: APP_URL, notifications_enabled: false });
    expect(res.json()).toEqual({ appUrl: APP_URL, appPinned: true, notificationsEnabled: false });
    expect(await status()).toEqual({ appPinned: true, notificationsEnabled: false });

    expect(
      (await user.post('/api/v1/client/apps/pin', { app_url: 'https://unknown.example' })).statusCode,
    ).toBe(404);
    expect((await user.post('/api/v1/client/apps/pin', {})).statusCode).toBe(400);
    const apps = (await user.get('/api/v1/client/apps')).json();
    expect(apps.apps).toEqual([
      { appUrl: APP_URL, notificationsEnabled: false, pinnedAt: expect.any(String) },
    ]);
    const catalog = (await user.get('/api/v1/client/catalog')).json();
    expect(catalog.apps).toEqual([{ appUrl: APP_URL, name: 'Test app', iconUrl: null }]);
  });

  it('the client API has its own budget per session', async () => {
    t = await startApp(backend, { rateLimit: 1, clientRateLimit: 4 }); // two sign-ins spend the IP budget of 4
    const aliceToken = await signIn(t, alice);
    const bobToken = await signIn(t, bob);
    for (let i = 0; i < 4; i++)
      expect((await as(aliceToken).get('/api/v1/client/apps')).statusCode).toBe(200);
    const limited = await as(aliceToken).get('/api/v1/client/apps');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await as(bobToken).get('/api/v1/client/apps')).statusCode).toBe(200);
    // The developers' budget (1 here) is separate.
    const dev = () =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/notifications/app/users?app_url=${APP_URL}`,
        headers: { 'x-api-key': t.apiKey },
      });
    expect((await dev()).statusCode).toBe(200);
    expect((await dev()).statusCode).toBe(429);
  });

  it('the inbox: list newest first with a cursor, unread only, mark read; one user never sees another’s', async () => {
    t = await startApp(backend);
    const aliceToken = await signIn(t, alice);
    const bobToken = await signIn(t, bob);
    await as(aliceToken).post('/api/v1/client/apps/pin', { app_url: APP_URL });
    await as(bobToken).post('/api/v1/client/apps/pin', { app_url: APP_URL });
    for (let i = 0; i < 5; i++) {
      await t.app.inject({
        method: 'POST',
        url: '/api/v1/notifications/send',
        headers: { 'x-api-key': t.apiKey },
        payload: {
          app_url: APP_URL,
          wallet_addresses: [alice.address],
          title: `n${i}`,
          message: 'm',
          target_path: '/x',
        },
      });
    }
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/notifications/send',
      headers: { 'x-api-key': t.apiKey },
      payload: { app_url: APP_URL, wallet_addresses: [bob.address], title: 'for bob', message: 'm' },
    });
    const a = as(aliceToken);
    const first = (await a.get('/api/v1/client/notifications?limit=3')).json();
    expect(first.notifications.map((n: { title: string }) => n.title)).toEqual(['n4', 'n3', 'n2']);
    expect(first.unreadCount).toBe(5);
    expect(first.notifications[0]).toMatchObject({ appUrl: APP_URL, targetPath: '/x', readAt: null });
    const second = (await a.get(`/api/v1/client/notifications?limit=3&cursor=${first.nextCursor}`)).json();
    expect(second.notifications.map((n: { title: string }) => n.title)).toEqual(['n1', 'n0']);
    expect(second.nextCursor).toBeUndefined();

    const ids = first.notifications.map((n: { id: string }) => n.id);
    const bobsId = (await as(bobToken).get('/api/v1/client/notifications')).json().notifications[0].id;
    const read = await a.post('/api/v1/client/notifications/read', { ids: [ids[0], ids[1], bobsId] });
    expect(read.json()).toEqual({ updated: 2, unreadCount: 3 });
    const unread = (await a.get('/api/v1/client/notifications?unread=true')).json();
    expect(unread.notifications.map((n: { title: string }) => n.title)).toEqual(['n2', 'n1', 'n0']);
    expect((await a.post('/api/v1/client/notifications/read', { all: true })).json()).toEqual({
      updated: 3,
      unreadCount: 0,
    });
    // Bob's notification is untouched and invisible to alice.
    const bobs = (await as(bobToken).get('/api/v1/client/notifications')).json();
    expect(bobs).toMatchObject({ unreadCount: 1, notifications: [{ title: 'for bob', readAt: null }] });
    expect((await a.post('/api/v1/client/notifications/read', {})).statusCode).toBe(400);
    expect((await a.get('/api/v1/client/notifications?limit=0')).statusCode).toBe(400);
    void addressOf;
  });
});
