/** The operator's operations (openAdmin for the CLI, and the admin HTTP API) and key hygiene. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildPlatformApp, openAdmin } from '../src/index.js';
import {
  APP_URL,
  addressOf,
  backends,
  baseOptions,
  cleanupBackends,
  startApp,
  type TestApp,
} from './helpers.js';

afterAll(cleanupBackends);

const SEND = '/api/v1/notifications/send';

describe.each(backends)('admin on $name', (backend) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('openAdmin: create, whitelist, app URLs (normalized), rotate, delete — while the server runs', async () => {
    const store = await backend.fresh();
    const app = await buildPlatformApp({ ...baseOptions, ...store });
    const admin = await openAdmin(store);
    try {
      const created = await admin.createProject({
        name: 'Demo',
        appUrl: 'HTTPS://Demo.Example.com:443/',
        owner: addressOf(7),
      });
      expect(created).toEqual({
        projectId: expect.any(String),
        apiKey: expect.stringMatching(/^wharf_[A-Za-z0-9_-]{43}$/),
        appUrls: ['https://demo.example.com'],
        whitelisted: false,
      });
      const send = (key: string, appUrl = 'https://demo.example.com') =>
        app.inject({
          method: 'POST',
          url: SEND,
          headers: { 'x-api-key': key },
          payload: { app_url: appUrl, wallet_addresses: [addressOf(1)], title: 't', message: 'm' },
        });
      expect((await send(created.apiKey)).statusCode).toBe(403);
      await admin.setWhitelisted(created.projectId, true);
      expect((await send(created.apiKey)).statusCode).toBe(200);

      expect(await admin.addAppUrl(created.projectId, 'http://localhost:5173/')).toEqual({
        appUrls: ['https://demo.example.com', 'http://localhost:5173'],
      });
      expect((await send(created.apiKey, 'http://localhost:5173')).statusCode).toBe(200);
      await expect(admin.addAppUrl(created.projectId, 'http://demo.example.com')).rejects.toThrow(/https/);
      await expect(admin.addAppUrl(created.projectId, 'ftp://x')).rejects.toThrow(/app_url/);
      expect(await admin.removeAppUrl(created.projectId, 'http://LOCALHOST:5173')).toEqual({
        appUrls: ['https://demo.example.com'],
      });
      expect((await send(created.apiKey, 'http://localhost:5173')).statusCode).toBe(403);

      // Another project cannot take a registered app URL.
      await expect(
        admin.createProject({ name: 'Thief', appUrl: 'https://demo.example.com/' }),
      ).rejects.toThrow(/already registered/);

      const rotated = await admin.rotateKey(created.projectId);
      expect(rotated.projectId).toBe(created.projectId);
      expect(rotated.apiKey).not.toBe(created.apiKey);
      expect((await send(created.apiKey)).statusCode).toBe(401);
      expect((await send(rotated.apiKey)).statusCode).toBe(200);

      const info = await admin.getProject(created.projectId);
      expect(info).toMatchObject({ name: 'Demo', owner: addressOf(7), whitelisted: true });
      expect(JSON.stringify(info)).not.toContain(rotated.apiKey);

      await admin.deleteProject(created.projectId);
      expect((await send(rotated.apiKey)).statusCode).toBe(404);
      await expect(admin.deleteProject(created.projectId)).rejects.toThrow(/does not exist/);
      await expect(admin.setWhitelisted('nope', true)).rejects.toThrow(/does not exist/);
      // Its app URL is free again.
      await admin.createProject({ name: 'Next', appUrl: 'https://demo.example.com' });
    } finally {
      await admin.close();
      await app.close();
    }
  });

  it('stores only the SHA-256 of a key', async () => {
    t = await startApp(backend);
    const rows = await t.app.platform.database.db.selectFrom('api_keys').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(t.apiKey);
  });

  it('admin HTTP API: bearer admin token; the same operations', async () => {
    t = await startApp(backend);
    const call = (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      payload?: unknown,
      token = 'admin-token-for-tests',
    ) =>
      t!.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, payload: payload as any });
    expect((await call('GET', '/api/v1/admin/projects', undefined, 'wrong')).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/admin/projects' })).statusCode).toBe(401);

    const created = await call('POST', '/api/v1/admin/projects', {
      name: 'HTTP',
      app_url: 'https://http.example.com',
    });
    expect(created.statusCode).toBe(201);
    const { projectId, apiKey } = created.json();
    expect(apiKey).toMatch(/^wharf_/);
    const listed = await call('GET', '/api/v1/admin/projects');
    expect(listed.json().projects.map((p: { name: string }) => p.name)).toEqual(['Test app', 'HTTP']);
    expect(listed.body).not.toContain(apiKey);

    const wl = await call('POST', `/api/v1/admin/projects/${projectId}/whitelist`, { whitelisted: true });
    expect(wl.json()).toMatchObject({ projectId, whitelisted: true });
    expect(
      (await call('POST', `/api/v1/admin/projects/${projectId}/whitelist`, { whitelisted: 'yes' }))
        .statusCode,
    ).toBe(400);
    const added = await call('POST', `/api/v1/admin/projects/${projectId}/app-urls`, {
      app_url: 'https://two.example.com',
    });
    expect(added.json()).toEqual({ appUrls: ['https://http.example.com', 'https://two.example.com'] });
    const conflict = await call('POST', `/api/v1/admin/projects/${projectId}/app-urls`, { app_url: APP_URL });
    expect(conflict.statusCode).toBe(409);
    const removed = await call(
      'DELETE',
      `/api/v1/admin/projects/${projectId}/app-urls?app_url=${encodeURIComponent('https://two.example.com')}`,
    );
    expect(removed.json()).toEqual({ appUrls: ['https://http.example.com'] });
    const rotated = await call('POST', `/api/v1/admin/projects/${projectId}/keys/rotate`);
    expect(rotated.json().apiKey).not.toBe(apiKey);
    expect((await call('DELETE', `/api/v1/admin/projects/${projectId}`)).json()).toEqual({ success: true });
    expect((await call('GET', `/api/v1/admin/projects/${projectId}`)).statusCode).toBe(404);
  });

  it('no API key or admin token reaches a log line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    t = await startApp(backend, { logger });
    await t.app.inject({
      method: 'POST',
      url: SEND,
      headers: { 'x-api-key': t.apiKey },
      payload: { app_url: APP_URL },
    });
    await t.app.inject({
      method: 'POST',
      url: SEND,
      headers: { 'x-api-key': `${t.apiKey}-bad` },
      payload: {},
    });
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/admin/projects',
      headers: { authorization: 'Bearer admin-token-for-tests' },
    });
    t.app.log.info(
      { headers: { 'x-api-key': t.apiKey, authorization: 'Bearer admin-token-for-tests' } },
      'x',
    );
    await t.app.inject({
      method: 'GET',
      url: '/api/v1/client/notifications/stream?access_token=secret-session-token',
    });
    expect(lines.length).toBeGreaterThan(3);
    const all = lines.join('');
    expect(all).not.toContain(t.apiKey);
    expect(all).not.toContain('admin-token-for-tests');
    expect(all).not.toContain('secret-session-token');
    expect(all).toContain('access_token=[redacted]');
    expect(all).toContain('[redacted]');
  });
});
