/**
 * The developer dashboard API: SIWE sign-in of developers, their projects through the Admin
 * operations, and authorization on every route (the owner succeeds, another developer gets 404,
 * no token gets 401). Keys made on the dashboard work on the developer API.
 */
import type { LightMyRequestResponse } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { buildPlatformApp, openAdmin } from '../src/index.js';
import {
  addressOf,
  backends,
  baseOptions,
  cleanupBackends,
  startApp as startHelperApp,
  type TestApp,
} from './helpers.js';

afterAll(cleanupBackends);

const HOST = 'platform.test';
/** The platform's configured public origin in these tests: SIWE messages name it. */
const startApp: typeof startHelperApp = (backend, overrides = {}, project = {}) =>
  startHelperApp(backend, { publicUrl: `http://${HOST}`, ...overrides }, project);
const ADMIN = 'admin-token-for-tests';
const SEND = '/api/v1/notifications/send';
const BASE = '/api/v1/dashboard';
const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
type Account = typeof alice;
type Method = 'GET' | 'POST' | 'DELETE';

async function siwe(t: TestApp, account: Account, realm: 'dashboard' | 'client') {
  const base = realm === 'dashboard' ? `${BASE}/auth` : '/api/v1/client/auth';
  const nonceRes = await t.app.inject({ method: 'POST', url: `${base}/nonce`, headers: { host: HOST } });
  expect(nonceRes.statusCode).toBe(200);
  const message = createSiweMessage({
    address: account.address,
    chainId: 31337,
    domain: HOST,
    nonce: nonceRes.json().nonce,
    uri: `http://${HOST}/`,
    version: '1',
    statement: 'Sign in to the wharf developer dashboard.',
    issuedAt: new Date(),
    expirationTime: new Date(Date.now() + 10 * 60_000),
  });
  const signature = await account.signMessage({ message });
  return t.app.inject({
    method: 'POST',
    url: `${base}/verify`,
    headers: { host: HOST },
    payload: { message, signature },
  });
}

async function signIn(t: TestApp, account: Account, realm: 'dashboard' | 'client' = 'dashboard') {
  const res = await siwe(t, account, realm);
  expect(res.statusCode).toBe(200);
  return res.json().token as string;
}

function caller(t: TestApp) {
  return (method: Method, url: string, token?: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

const sendBody = (appUrl: string, wallets: string[], title = 'Hello') => ({
  app_url: appUrl,
  wallet_addresses: wallets,
  title,
  message: 'A test notification',
});

describe.each(backends)('dashboard API on $name', (backend) => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  it('signs developers in with SIWE; a dashboard token and a client token each work only in their realm', async () => {
    t = await startApp(backend);
    const call = caller(t);
    const res = await siwe(t, alice, 'dashboard');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      token: expect.any(String),
      address: alice.address,
      expiresAt: expect.any(String),
    });
    // 24 hours at most (the client session lasts 7 days).
    expect(Date.parse(res.json().expiresAt) - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
    const dashboardToken = res.json().token;
    expect((await call('GET', `${BASE}/projects`, dashboardToken)).statusCode).toBe(200);

    const clientToken = await signIn(t, alice, 'client');
    const refused = await call('GET', `${BASE}/projects`, clientToken);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ success: false, error: 'Unauthorized' });
    expect((await call('GET', '/api/v1/client/apps', dashboardToken)).statusCode).toBe(401);
    expect((await call('GET', '/api/v1/client/apps', clientToken)).statusCode).toBe(200);
    // Nor is a developer's token the operator's.
    expect((await call('GET', '/api/v1/admin/projects', dashboardToken)).statusCode).toBe(401);

    // A signature that is not the address's, and a reused nonce.
    const nonce = (
      await t.app.inject({ method: 'POST', url: `${BASE}/auth/nonce`, headers: { host: HOST } })
    ).json().nonce;
    const message = createSiweMessage({
      address: alice.address,
      chainId: 31337,
      domain: HOST,
      nonce,
      uri: `http://${HOST}/`,
      version: '1',
    });
    const forged = await t.app.inject({
      method: 'POST',
      url: `${BASE}/auth/verify`,
      headers: { host: HOST },
      payload: { message, signature: await bob.signMessage({ message }) },
    });
    expect(forged.statusCode).toBe(401);
    // The forged attempt spent the nonce (it is consumed before the signature is checked).
    const spent = { message, signature: await alice.signMessage({ message }) };
    const verify = (payload: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `${BASE}/auth/verify`,
        headers: { host: HOST },
        payload: payload as any,
      });
    expect((await verify(spent)).json().message).toContain('nonce');
    const fresh = (await t.app.inject({ method: 'POST', url: `${BASE}/auth/nonce` })).json().nonce;
    const again = message.replace(`Nonce: ${nonce}`, `Nonce: ${fresh}`);
    const good = { message: again, signature: await alice.signMessage({ message: again }) };
    expect((await verify(good)).statusCode).toBe(200);
    expect((await verify(good)).statusCode).toBe(401);
    const missing = await t.app.inject({
      method: 'POST',
      url: `${BASE}/auth/verify`,
      headers: { host: HOST },
      payload: {},
    });
    expect(missing.statusCode).toBe(400);
    expect((await call('GET', `${BASE}/projects`, 'not-a-token')).statusCode).toBe(401);

    // Sign-out ends that session only.
    const other = await signIn(t, alice);
    expect((await call('DELETE', `${BASE}/auth/session`, dashboardToken)).json()).toEqual({ success: true });
    expect((await call('GET', `${BASE}/projects`, dashboardToken)).statusCode).toBe(401);
    expect((await call('DELETE', `${BASE}/auth/session`, dashboardToken)).statusCode).toBe(401);
    expect((await call('GET', `${BASE}/projects`, other)).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/client/apps', clientToken)).statusCode).toBe(200);
  });

  it('every project route: the owner succeeds, another developer gets 404, no token gets 401', async () => {
    t = await startApp(backend);
    const call = caller(t);
    const a = await signIn(t, alice);
    const b = await signIn(t, bob);
    const created = await call('POST', `${BASE}/projects`, a, {
      name: 'Alice app',
      app_url: 'https://alice.example',
    });
    expect(created.statusCode).toBe(201);
    const { projectId: pid, apiKey } = created.json();
    // The operator's project made by startApp has no owner: no developer may touch it either.
    const ownerless = t.projectId;
    await t.app.platform.admin.setWhitelisted(pid, true);
    await t.app.platform.preferences.pin('https://alice.example', addressOf(1), {
      notificationsEnabled: true,
      now: Date.now(),
    });

    const P = `${BASE}/projects/${pid}`;
    const routes: Array<{ method: Method; url: (p: string) => string; payload?: unknown; ok: number }> = [
      { method: 'GET', url: (p) => `${BASE}/projects/${p}`, ok: 200 },
      {
        method: 'POST',
        url: (p) => `${BASE}/projects/${p}/app-urls`,
        payload: { app_url: 'https://two.alice.example' },
        ok: 200,
      },
      {
        method: 'DELETE',
        url: (p) =>
          `${BASE}/projects/${p}/app-urls?app_url=${encodeURIComponent('https://two.alice.example')}`,
        ok: 200,
      },
      {
        method: 'GET',
        url: (p) => `${BASE}/projects/${p}/users?app_url=${encodeURIComponent('https://alice.example')}`,
        ok: 200,
      },
      {
        method: 'POST',
        url: (p) => `${BASE}/projects/${p}/status`,
        payload: { app_url: 'https://alice.example', wallet_address: addressOf(1) },
        ok: 200,
      },
      {
        method: 'POST',
        url: (p) => `${BASE}/projects/${p}/send`,
        payload: sendBody('https://alice.example', [addressOf(1)]),
        ok: 200,
      },
      { method: 'POST', url: (p) => `${BASE}/projects/${p}/keys/rotate`, ok: 200 },
      { method: 'DELETE', url: (p) => `${BASE}/projects/${p}/keys`, ok: 200 },
      { method: 'DELETE', url: (p) => `${BASE}/projects/${p}`, ok: 200 },
    ];

    const expectRefused = (res: LightMyRequestResponse, status: number, label: string) => {
      expect(res.statusCode, label).toBe(status);
      expect(res.json(), label).toMatchObject({ success: false });
    };
    for (const r of routes) {
      const label = `${r.method} ${r.url(':id')}`;
      expectRefused(await call(r.method, r.url(pid), undefined, r.payload), 401, `${label} without a token`);
      expectRefused(await call(r.method, r.url(pid), 'wrong', r.payload), 401, `${label} with a bad token`);
      const other = await call(r.method, r.url(pid), b, r.payload);
      expectRefused(other, 404, `${label} as another developer`);
      // The same answer as for a project that does not exist: existence does not leak.
      const missing = await call(r.method, r.url('01NOPE'), b, r.payload);
      expect(other.json().message.replace(pid, 'X'), label).toBe(
        missing.json().message.replace('01NOPE', 'X'),
      );
      expectRefused(
        await call(r.method, r.url(ownerless), a, r.payload),
        404,
        `${label} on an ownerless project`,
      );
    }
    expectRefused(await call('GET', `${BASE}/projects`), 401, 'GET projects without a token');
    expectRefused(
      await call('POST', `${BASE}/projects`, undefined, { name: 'x', app_url: 'https://x.example' }),
      401,
      'POST projects without a token',
    );

    // Nothing the others tried changed anything.
    const before = (await call('GET', P, a)).json();
    expect(before).toMatchObject({
      projectId: pid,
      owner: alice.address,
      appUrls: ['https://alice.example'],
      hasKey: true,
    });
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: SEND,
          headers: { 'x-api-key': apiKey },
          payload: sendBody('https://alice.example', [addressOf(1)], 'Still'),
        })
      ).statusCode,
    ).toBe(200);

    for (const r of routes) {
      const res = await call(r.method, r.url(pid), a, r.payload);
      expect(res.statusCode, `${r.method} ${r.url(':id')} as the owner: ${res.body}`).toBe(r.ok);
    }
    expect((await call('GET', P, a)).statusCode).toBe(404);
  });

  it('a key made on the dashboard: 403 until the operator whitelists, then 200; rotate -> old 401; revoke -> 401; delete -> 404', async () => {
    t = await startApp(backend);
    const call = caller(t);
    const a = await signIn(t, alice);
    const created = await call('POST', `${BASE}/projects`, a, {
      name: 'Demo',
      app_url: 'HTTPS://Demo.Example:443/',
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      projectId: expect.any(String),
      apiKey: expect.stringMatching(/^wharf_/),
      appUrls: ['https://demo.example'],
      whitelisted: false,
    });
    const { projectId, apiKey } = created.json();
    const rows = await t.app.platform.database.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(apiKey);
    expect((await call('GET', `${BASE}/projects/${projectId}`, a)).body).not.toContain(apiKey);

    const wallet = addressOf(42);
    await t.app.platform.preferences.pin('https://demo.example', wallet, {
      notificationsEnabled: true,
      now: Date.now(),
    });
    const sendWithKey = (key: string, title = 'Hi') =>
      t.app.inject({
        method: 'POST',
        url: SEND,
        headers: { 'x-api-key': key },
        payload: sendBody('https://demo.example', [wallet], title),
      });

    const refused = await sendWithKey(apiKey);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().message).toContain('not whitelisted');
    const dashRefused = await call(
      'POST',
      `${BASE}/projects/${projectId}/send`,
      a,
      sendBody('https://demo.example', [wallet]),
    );
    expect(dashRefused.statusCode).toBe(403);
    expect(dashRefused.json()).toEqual(refused.json());

    // Only the operator whitelists: not the developer, on either API.
    expect(
      (await call('POST', `${BASE}/projects/${projectId}/whitelist`, a, { whitelisted: true })).statusCode,
    ).toBe(404);
    expect(
      (await call('POST', `/api/v1/admin/projects/${projectId}/whitelist`, a, { whitelisted: true }))
        .statusCode,
    ).toBe(401);
    const wl = await call('POST', `/api/v1/admin/projects/${projectId}/whitelist`, ADMIN, {
      whitelisted: true,
    });
    expect(wl.statusCode).toBe(200);
    expect(wl.json()).toMatchObject({ projectId, whitelisted: true, owner: alice.address, hasKey: true });

    const ok = await sendWithKey(apiKey);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({
      success: true,
      results: [{ walletAddress: wallet, sent: true }],
      sentCount: 1,
      failedCount: 0,
    });
    // The dashboard's test send answers exactly as the API does (and dedupes with it).
    const dashSend = await call('POST', `${BASE}/projects/${projectId}/send`, a, {
      ...sendBody('https://demo.example', [wallet.toLowerCase(), wallet, addressOf(43)], 'Hi'),
    });
    expect(dashSend.statusCode).toBe(200);
    expect(dashSend.json()).toEqual({
      success: false,
      results: [
        { walletAddress: wallet, sent: true },
        { walletAddress: addressOf(43), sent: false, failureReason: 'user has not saved this app' },
      ],
      sentCount: 1,
      failedCount: 1,
    });
    const inbox = await t.app.platform.database.db.selectFrom('notifications').selectAll().execute();
    expect(inbox).toHaveLength(1);
    expect(
      (
        await call('POST', `${BASE}/projects/${projectId}/send`, a, {
          ...sendBody('https://demo.example', [wallet]),
          title: 'x'.repeat(31),
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (
        await call(
          'POST',
          `${BASE}/projects/${projectId}/send`,
          a,
          sendBody('https://other.example', [wallet]),
        )
      ).statusCode,
    ).toBe(403);

    // Users and status: the same answers as with the key.
    const usersUrl = `users?app_url=${encodeURIComponent('https://demo.example')}&notification_enabled=true&limit=10`;
    const viaKey = await t.app.inject({
      method: 'GET',
      url: `/api/v1/notifications/app/${usersUrl}`,
      headers: { 'x-api-key': apiKey },
    });
    const viaDash = await call('GET', `${BASE}/projects/${projectId}/${usersUrl}`, a);
    expect(viaDash.statusCode).toBe(200);
    expect(viaDash.json()).toEqual(viaKey.json());
    expect(viaDash.json().users).toEqual([{ address: wallet, notificationsEnabled: true }]);
    const status = await call('POST', `${BASE}/projects/${projectId}/status`, a, {
      app_url: 'https://demo.example',
      wallet_address: wallet.toLowerCase(),
    });
    expect(status.json()).toEqual({ appPinned: true, notificationsEnabled: true });
    expect(
      (
        await call('POST', `${BASE}/projects/${projectId}/status`, a, {
          app_url: 'https://demo.example',
          wallet_address: 'nope',
        })
      ).statusCode,
    ).toBe(400);

    const rotated = await call('POST', `${BASE}/projects/${projectId}/keys/rotate`, a);
    expect(rotated.statusCode).toBe(200);
    const newKey = rotated.json().apiKey;
    expect(newKey).not.toBe(apiKey);
    expect((await sendWithKey(apiKey, 'After rotate')).statusCode).toBe(401);
    expect((await sendWithKey(newKey, 'After rotate')).statusCode).toBe(200);

    const revoked = await call('DELETE', `${BASE}/projects/${projectId}/keys`, a);
    expect(revoked.json()).toEqual({ projectId, revoked: 1 });
    expect((await sendWithKey(newKey, 'After revoke')).statusCode).toBe(401);
    expect((await call('GET', `${BASE}/projects/${projectId}`, a)).json().hasKey).toBe(false);
    expect((await call('DELETE', `${BASE}/projects/${projectId}/keys`, a)).json()).toEqual({
      projectId,
      revoked: 0,
    });
    // Without a key the dashboard still sends (the session is the credential).
    expect(
      (
        await call(
          'POST',
          `${BASE}/projects/${projectId}/send`,
          a,
          sendBody('https://demo.example', [wallet], 'Keyless'),
        )
      ).statusCode,
    ).toBe(200);
    const third = (await call('POST', `${BASE}/projects/${projectId}/keys/rotate`, a)).json().apiKey;
    expect((await sendWithKey(third, 'Third')).statusCode).toBe(200);

    expect((await call('DELETE', `${BASE}/projects/${projectId}`, a)).json()).toEqual({ success: true });
    expect((await sendWithKey(third, 'Deleted')).statusCode).toBe(404);
    expect((await call('GET', `${BASE}/projects/${projectId}`, a)).statusCode).toBe(404);
    expect((await call('DELETE', `${BASE}/projects/${projectId}`, a)).statusCode).toBe(404);
  });

  it('lists only one’s own projects; the CLI face (openAdmin, --owner) and the dashboard agree', async () => {
    const store = await backend.fresh();
    const app = await buildPlatformApp({ ...baseOptions, ...store, publicUrl: `http://${HOST}` });
    t = { app, apiKey: '', projectId: '', pin: async () => {}, close: () => app.close() };
    // What the `wharf project|app|key` commands open: the same store, while the service runs.
    const admin = await openAdmin(store);
    onTestFinished(() => admin.close());
    const call = caller(t);
    const a = await signIn(t, alice);
    const b = await signIn(t, bob);
    const pa = (
      await call('POST', `${BASE}/projects`, a, { name: 'A1', app_url: 'https://a1.example' })
    ).json();
    // Projects list in creation order (milliseconds, then id): keep the three apart in time.
    const tick = () => new Promise((r) => setTimeout(r, 5));
    await tick();
    const pb = (
      await call('POST', `${BASE}/projects`, b, { name: 'B1', app_url: 'http://localhost:5173/' })
    ).json();
    await tick();
    // What `wharf project create --owner ADDRESS` does (the same Admin operation, lower-case owner).
    const cli = await admin.createProject({
      name: 'A2',
      appUrl: 'https://a2.example',
      owner: alice.address.toLowerCase(),
    });

    const names = async (token: string) =>
      (await call('GET', `${BASE}/projects`, token)).json().projects.map((p: { name: string }) => p.name);
    expect(await names(a)).toEqual(['A1', 'A2']);
    expect(await names(b)).toEqual(['B1']);
    const listed = (await call('GET', `${BASE}/projects`, a)).json().projects;
    expect(listed[0]).toEqual({
      projectId: pa.projectId,
      name: 'A1',
      owner: alice.address,
      whitelisted: false,
      appUrls: ['https://a1.example'],
      createdAt: expect.any(String),
      hasKey: true,
      iconUrl: null,
    });
    expect(JSON.stringify(listed)).not.toContain(pa.apiKey);
    // The operator sees everything, with the same shapes.
    const all = (await call('GET', '/api/v1/admin/projects', ADMIN)).json().projects;
    expect(all.map((p: { name: string }) => p.name)).toEqual(['A1', 'B1', 'A2']);
    expect(all.find((p: { name: string }) => p.name === 'A1')).toEqual(listed[0]);

    // Changes on one face show on the other.
    expect((await admin.listProjects({ owner: alice.address })).map((p) => p.name)).toEqual(['A1', 'A2']);
    await admin.addAppUrl(cli.projectId, 'https://a2b.example');
    expect((await call('GET', `${BASE}/projects/${cli.projectId}`, a)).json().appUrls).toEqual([
      'https://a2.example',
      'https://a2b.example',
    ]);
    await call('DELETE', `/api/v1/admin/projects/${pb.projectId}/keys`, ADMIN);
    expect((await call('GET', `${BASE}/projects/${pb.projectId}`, b)).json().hasKey).toBe(false);
    await call('POST', `${BASE}/projects/${pb.projectId}/keys/rotate`, b);
    expect((await admin.getProject(pb.projectId)).hasKey).toBe(true);
    await call('DELETE', `${BASE}/projects/${pa.projectId}/app-urls?app_url=https%3A%2F%2Fa1.example`, a);
    expect((await admin.getProject(pa.projectId)).appUrls).toEqual([]);
    await admin.deleteProject(cli.projectId);
    expect((await call('GET', `${BASE}/projects/${cli.projectId}`, a)).statusCode).toBe(404);
    await admin.addAppUrl(pa.projectId, 'https://a1.example');

    // Create rules: app URL taken (409), bad URL (400), someone else as owner (400), whitelisted (400).
    const create = (payload: unknown) => call('POST', `${BASE}/projects`, a, payload);
    expect((await create({ name: 'Dup', app_url: 'https://B1.example' })).statusCode).toBe(201);
    const taken = await create({ name: 'Taken', app_url: 'http://LOCALHOST:5173' });
    expect(taken.statusCode).toBe(409);
    expect((await create({ name: 'Bad', app_url: 'http://plain.example' })).statusCode).toBe(400);
    expect((await create({ name: '', app_url: 'https://n.example' })).statusCode).toBe(400);
    const notMine = await create({ name: 'X', app_url: 'https://x.example', owner: bob.address });
    expect(notMine.statusCode).toBe(400);
    expect(notMine.json().message).toContain('owner');
    expect(
      (await create({ name: 'Y', app_url: 'https://y.example', owner: alice.address.toLowerCase() }))
        .statusCode,
    ).toBe(201);
    expect((await create({ name: 'W', app_url: 'https://w.example', whitelisted: true })).statusCode).toBe(
      400,
    );
    // Bob cannot register an app URL that Alice holds, nor learn more than "taken".
    const grab = await call('POST', `${BASE}/projects/${pb.projectId}/app-urls`, b, {
      app_url: 'https://a1.example',
    });
    expect(grab.statusCode).toBe(409);
    expect(await names(b)).toEqual(['B1']);
  });

  it('a dashboard session expires after 24 hours; the test routes spend the notification budget (429 first)', async () => {
    let now = Date.now();
    t = await startApp(backend, { clock: () => now, rateLimit: 4 });
    const call = caller(t);
    const a = await signIn(t, alice);
    const { projectId, apiKey } = (
      await call('POST', `${BASE}/projects`, a, { name: 'Budget', app_url: 'https://budget.example' })
    ).json();
    await t.app.platform.admin.setWhitelisted(projectId, true);
    const keySend = () =>
      t.app.inject({
        method: 'POST',
        url: SEND,
        headers: { 'x-api-key': apiKey },
        payload: sendBody('https://budget.example', [addressOf(1)]),
      });
    const dashSend = (token?: string) =>
      call(
        'POST',
        `${BASE}/projects/${projectId}/send`,
        token,
        sendBody('https://budget.example', [addressOf(1)]),
      );
    expect((await keySend()).statusCode).toBe(200);
    expect((await dashSend(a)).statusCode).toBe(200);
    expect((await keySend()).statusCode).toBe(200);
    const last = await dashSend(a);
    expect(last.statusCode).toBe(200);
    expect(last.headers['ratelimit-remaining']).toBe('0');
    // One budget across the developer API and the dashboard's test routes; 429 before 401.
    expect((await keySend()).statusCode).toBe(429);
    expect((await dashSend(a)).statusCode).toBe(429);
    expect((await dashSend()).statusCode).toBe(429);
    // The project routes have their own (per-session) budget.
    expect((await call('GET', `${BASE}/projects/${projectId}`, a)).statusCode).toBe(200);

    now += 24 * 3600_000 + 1;
    const expired = await call('GET', `${BASE}/projects`, a);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().message).toContain('sign in again');
  });

  it('describes every dashboard route in the OpenAPI document', async () => {
    t = await startApp(backend);
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const expected: Record<string, string[]> = {
      '/api/v1/dashboard/auth/nonce': ['post'],
      '/api/v1/dashboard/auth/verify': ['post'],
      '/api/v1/dashboard/auth/session': ['delete'],
      '/api/v1/dashboard/projects': ['get', 'post'],
      '/api/v1/dashboard/projects/{projectId}': ['get', 'delete'],
      '/api/v1/dashboard/projects/{projectId}/app-urls': ['post', 'delete'],
      '/api/v1/dashboard/projects/{projectId}/keys/rotate': ['post'],
      '/api/v1/dashboard/projects/{projectId}/keys': ['delete'],
      '/api/v1/dashboard/projects/{projectId}/users': ['get'],
      '/api/v1/dashboard/projects/{projectId}/status': ['post'],
      '/api/v1/dashboard/projects/{projectId}/send': ['post'],
      '/api/v1/admin/projects/{projectId}/keys': ['delete'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const m of methods) expect(doc.paths[path]?.[m], `${m} ${path}`).toBeDefined();
    }
    const send = doc.paths['/api/v1/dashboard/projects/{projectId}/send'].post;
    expect(send.security).toEqual([{ dashboardSession: [] }]);
    expect(Object.keys(send.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '429', '503']),
    );
    expect(doc.components.securitySchemes.dashboardSession).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/api/v1/dashboard/projects/{projectId}'].get.responses['200']).toBeDefined();
  });
});
