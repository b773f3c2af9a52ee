/**
 * What the platform app shows for a project's apps: the name and icon URL a developer sets
 * (dashboard or admin API) reach the catalog the app reads for its inbox; bad values are 400.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { APP_URL, backends, baseOptions, cleanupBackends, startApp, type TestApp } from './helpers.js';

afterAll(cleanupBackends);

const HOST = 'platform.test';
const user = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const admin = { authorization: `Bearer ${baseOptions.adminToken}` };

async function clientToken(t: TestApp): Promise<string> {
  const { nonce } = (
    await t.app.inject({ method: 'POST', url: '/api/v1/client/auth/nonce', headers: { host: HOST } })
  ).json();
  const message = createSiweMessage({
    address: user.address,
    chainId: 31337,
    domain: HOST,
    nonce,
    uri: `http://${HOST}/`,
    version: '1',
    issuedAt: new Date(),
  });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/client/auth/verify',
    headers: { host: HOST },
    payload: { message, signature: await user.signMessage({ message }) },
  });
  expect(res.statusCode).toBe(200);
  return res.json().token;
}

describe.each(backends)('project name and icon on $name', (backend) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('a name and icon set on the project reach the catalog the inbox reads', async () => {
    t = await startApp(backend, { publicUrl: `http://${HOST}` });
    const catalog = async () =>
      (
        await t!.app.inject({
          method: 'GET',
          url: '/api/v1/client/catalog',
          headers: { authorization: `Bearer ${token}`, host: HOST },
        })
      ).json().apps;
    const token = await clientToken(t);
    expect(await catalog()).toEqual([{ appUrl: APP_URL, name: 'Test app', iconUrl: null }]);

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/projects/${t.projectId}`,
      headers: admin,
      payload: { name: 'Coffee Club', icon_url: 'https://app.example.com/icon.png' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({
      name: 'Coffee Club',
      iconUrl: 'https://app.example.com/icon.png',
    });
    expect(await catalog()).toEqual([
      { appUrl: APP_URL, name: 'Coffee Club', iconUrl: 'https://app.example.com/icon.png' },
    ]);

    for (const [payload, message] of [
      [{ icon_url: 'javascript:alert(1)' }, 'icon_url must be an absolute http(s) URL'],
      [
        { icon_url: 'http://evil.example/x.png' },
        'icon_url must use https (http only on localhost or 127.0.0.1)',
      ],
      [{ name: '   ' }, 'name must be a non-empty string'],
      [{ name: 'x'.repeat(101) }, 'name must be at most 100 characters'],
    ] as const) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: `/api/v1/admin/projects/${t.projectId}`,
        headers: admin,
        payload,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(message);
    }
    const cleared = await t.app.inject({
      method: 'PATCH',
      url: `/api/v1/admin/projects/${t.projectId}`,
      headers: admin,
      payload: { icon_url: null },
    });
    expect(cleared.json().iconUrl).toBeNull();
    expect((await catalog())[0].iconUrl).toBeNull();
    const missing = await t.app.inject({
      method: 'PATCH',
      url: '/api/v1/admin/projects/NOPE',
      headers: admin,
      payload: { name: 'x' },
    });
    expect(missing.statusCode).toBe(404);
  });
});
