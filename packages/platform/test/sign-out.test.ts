/**
 * Sessions (issue 29, Low): sign-out ends a session on the server (client API and dashboard), its
 * open streams end with it, and `?access_token=` works on the stream route only.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  backends,
  cleanupBackends,
  type ListeningApp,
  listenApp,
  rawRequest,
  signInOverHttp,
} from './helpers.js';

afterAll(cleanupBackends);

const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

describe.each(backends)('sign-out on $name', (backend) => {
  let t: ListeningApp;
  afterEach(async () => {
    await t?.close();
  });

  it('DELETE /api/v1/client/auth/session ends the session and its open stream', async () => {
    t = await listenApp(backend);
    const token = await signInOverHttp(t, alice);
    const other = await signInOverHttp(t, alice);
    const bearer = (tk: string) => ({ authorization: `Bearer ${tk}` });
    expect((await rawRequest(`${t.url}/api/v1/client/apps`, { headers: bearer(token) })).status).toBe(200);

    const stream = await fetch(`${t.url}/api/v1/client/notifications/stream?access_token=${token}`);
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    await reader.read(); // the retry line
    const ended = (async () => {
      for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return Date.now();
    })();

    const started = Date.now();
    const out = await rawRequest(`${t.url}/api/v1/client/auth/session`, {
      method: 'DELETE',
      headers: bearer(token),
    });
    expect(out.status).toBe(200);
    expect(out.json()).toEqual({ success: true });
    expect((await ended) - started).toBeLessThan(2000);
    const after = await rawRequest(`${t.url}/api/v1/client/apps`, { headers: bearer(token) });
    expect(after.status).toBe(401);
    expect(after.json()).toMatchObject({ success: false, error: 'Unauthorized' });
    // Signing out twice is 401 (the session is gone); the other session lives on.
    expect(
      (await rawRequest(`${t.url}/api/v1/client/auth/session`, { method: 'DELETE', headers: bearer(token) }))
        .status,
    ).toBe(401);
    expect((await rawRequest(`${t.url}/api/v1/client/apps`, { headers: bearer(other) })).status).toBe(200);
  });

  it('the dashboard’s sign-out ends its session on the server', async () => {
    t = await listenApp(backend);
    const token = await signInOverHttp(t, alice, 'dashboard');
    const headers = { authorization: `Bearer ${token}` };
    expect((await rawRequest(`${t.url}/api/v1/dashboard/projects`, { headers })).status).toBe(200);
    expect(
      (await rawRequest(`${t.url}/api/v1/dashboard/auth/session`, { method: 'DELETE', headers })).status,
    ).toBe(200);
    expect((await rawRequest(`${t.url}/api/v1/dashboard/projects`, { headers })).status).toBe(401);
  });

  it('?access_token= is accepted on the stream route only', async () => {
    t = await listenApp(backend);
    const token = await signInOverHttp(t, alice);
    for (const url of ['/api/v1/client/apps', '/api/v1/client/catalog', '/api/v1/client/notifications']) {
      const res = await rawRequest(`${t.url}${url}?access_token=${token}`);
      expect(res.status, url).toBe(401);
      expect(res.json().message).toContain('Authorization: Bearer');
    }
    const stream = await fetch(`${t.url}/api/v1/client/notifications/stream?access_token=${token}`);
    expect(stream.status).toBe(200);
    await stream.body!.cancel();
  });
});
