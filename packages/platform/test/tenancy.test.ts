/**
 * Finding 4 of issue 29: a freed app URL hands no users to its next owner. Project A registers a
 * URL, a user pins it, A is deleted (or drops the URL); developer B adds the same URL from the
 * dashboard and is refused (only the operator may register a URL another project used) — and
 * when the operator does give it to B, B lists and reaches none of A's users.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  addressOf,
  backends,
  cleanupBackends,
  type ListeningApp,
  listenApp,
  rawRequest,
  signInOverHttp,
} from './helpers.js';

afterAll(cleanupBackends);

const devA = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const devB = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const user = privateKeyToAccount('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6');
const SHOP = 'https://shop.example';
const ADMIN = 'admin-token-for-tests';

describe.each(backends)('a freed app URL carries no users, on $name', (backend) => {
  let t: ListeningApp;
  afterEach(async () => {
    await t?.close();
  });

  const signIn = (account: typeof devA, realm: 'client' | 'dashboard') => signInOverHttp(t, account, realm);
  const call = (method: string, url: string, token: string, body?: unknown) =>
    rawRequest(`${t.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** A's project with SHOP, whitelisted, pinned by `user` (and one more wallet). */
  async function projectAWithUsers(a: string): Promise<string> {
    const created = await call('POST', '/api/v1/dashboard/projects', a, { name: 'Shop A', app_url: SHOP });
    expect(created.status).toBe(201);
    const projectId = created.json().projectId;
    await call('POST', `/api/v1/admin/projects/${projectId}/whitelist`, ADMIN, { whitelisted: true });
    const u = await signIn(user, 'client');
    expect((await call('POST', '/api/v1/client/apps/pin', u, { app_url: SHOP })).status).toBe(200);
    await t.app.platform.preferences.pin(SHOP, addressOf(7), { notificationsEnabled: true, now: Date.now() });
    return projectId;
  }

  it.each([
    ['deletes the project', (a: string, id: string) => call('DELETE', `/api/v1/dashboard/projects/${id}`, a)],
    [
      'drops the URL',
      (a: string, id: string) =>
        call('DELETE', `/api/v1/dashboard/projects/${id}/app-urls?app_url=${encodeURIComponent(SHOP)}`, a),
    ],
  ])('A %s; B cannot take the URL from the dashboard', async (_, free) => {
    t = await listenApp(backend, { adminToken: ADMIN });
    const a = await signIn(devA, 'dashboard');
    const b = await signIn(devB, 'dashboard');
    const aProject = await projectAWithUsers(a);
    expect((await free(a, aProject)).status).toBe(200);

    const asNew = await call('POST', '/api/v1/dashboard/projects', b, { name: 'Shop B', app_url: SHOP });
    expect(asNew.status).toBe(403);
    expect(asNew.json()).toEqual({
      success: false,
      error: 'Forbidden',
      message: expect.stringContaining('only the operator can register it again'),
    });
    const bProject = (
      await call('POST', '/api/v1/dashboard/projects', b, { name: 'Shop B', app_url: 'https://b.example' })
    ).json().projectId;
    const added = await call('POST', `/api/v1/dashboard/projects/${bProject}/app-urls`, b, {
      app_url: `${SHOP}/`,
    });
    expect(added.status).toBe(403);
    // The URL is not in the catalog, and the user's pin is gone with A's project.
    const u = await signIn(user, 'client');
    expect((await call('GET', '/api/v1/client/apps', u)).json().apps).toEqual([]);
  });

  it('the operator may give the URL to B, who gets none of A’s users', async () => {
    t = await listenApp(backend, { adminToken: ADMIN });
    const a = await signIn(devA, 'dashboard');
    const b = await signIn(devB, 'dashboard');
    const aProject = await projectAWithUsers(a);
    expect((await call('DELETE', `/api/v1/dashboard/projects/${aProject}`, a)).status).toBe(200);

    const bProject = (
      await call('POST', '/api/v1/dashboard/projects', b, { name: 'Shop B', app_url: 'https://b.example' })
    ).json().projectId;
    const byOperator = await call('POST', `/api/v1/admin/projects/${bProject}/app-urls`, ADMIN, {
      app_url: SHOP,
    });
    expect(byOperator.status).toBe(200);
    await call('POST', `/api/v1/admin/projects/${bProject}/whitelist`, ADMIN, { whitelisted: true });

    const users = await call(
      'GET',
      `/api/v1/dashboard/projects/${bProject}/users?app_url=${encodeURIComponent(SHOP)}`,
      b,
    );
    expect(users.status).toBe(200);
    expect(users.json().users).toEqual([]);
    const sent = await call('POST', `/api/v1/dashboard/projects/${bProject}/send`, b, {
      app_url: SHOP,
      wallet_addresses: [user.address, addressOf(7)],
      title: 'Hi',
      message: 'from B',
    });
    expect(sent.json()).toMatchObject({ success: false, sentCount: 0, failedCount: 2 });
    expect(sent.json().results[0].failureReason).toBe('user has not saved this app');
    const status = await call('POST', `/api/v1/dashboard/projects/${bProject}/status`, b, {
      app_url: SHOP,
      wallet_address: user.address,
    });
    expect(status.json()).toEqual({ appPinned: false, notificationsEnabled: false });
  });

  it('A may take its own URL back from the dashboard', async () => {
    t = await listenApp(backend, { adminToken: ADMIN });
    const a = await signIn(devA, 'dashboard');
    const id = (await call('POST', '/api/v1/dashboard/projects', a, { name: 'A', app_url: SHOP })).json()
      .projectId;
    const url = `/api/v1/dashboard/projects/${id}/app-urls`;
    expect((await call('DELETE', `${url}?app_url=${encodeURIComponent(SHOP)}`, a)).status).toBe(200);
    expect((await call('POST', url, a, { app_url: SHOP })).status).toBe(200);
  });
});
