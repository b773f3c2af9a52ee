/**
 * The route schemas validate (http/validation.ts): with several broken fields the 400 names the
 * first in the spec's order (app_url, wallet_addresses, title, message, target_path) and its first
 * rule; the first broken entry of wallet_addresses by index; bodies are not coerced (a number is
 * not a title); a query string's integer is decimal digits; null target_path is absent. The
 * client API's pins: a valid but unregistered app URL is 404 before the rest of the body.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { APP_URL, addressOf, backends, cleanupBackends, startApp, type TestApp } from './helpers.js';

afterAll(cleanupBackends);

const SEND = '/api/v1/notifications/send';
const USERS = '/api/v1/notifications/app/users';
const valid = { app_url: APP_URL, wallet_addresses: [addressOf(1)], title: 'Hello', message: 'World' };

describe('schema validation', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  const send = (payload: unknown) =>
    t.app.inject({
      method: 'POST',
      url: SEND,
      headers: { 'x-api-key': t.apiKey },
      payload: payload as object,
    });
  const messageOf = async (payload: unknown) => {
    const res = await send(payload);
    expect(res.statusCode, JSON.stringify(payload).slice(0, 120)).toBe(400);
    expect(res.headers['x-wharf-error-code']).toBe('VALIDATION_FAILED');
    return res.json().message as string;
  };

  it('reports the first broken field in the spec’s order, and its first rule', async () => {
    t = await startApp(backends[0]!);
    const long = 'x'.repeat(31);
    expect(await messageOf({ ...valid, app_url: 'ftp://x', title: long })).toBe(
      'app_url must be an absolute http(s) URL',
    );
    expect(await messageOf({ ...valid, wallet_addresses: [], title: long })).toBe(
      'wallet_addresses must have at least 1 entry',
    );
    expect(await messageOf({ ...valid, title: long, message: undefined })).toBe(
      'title must be at most 30 characters',
    );
    expect(await messageOf({ ...valid, title: ' '.repeat(40) })).toBe('title is required');
    expect(await messageOf({ ...valid, message: null, target_path: 'x' })).toBe('message is required');
    expect(await messageOf({ title: long })).toBe('app_url is required');
    expect(await messageOf([valid])).toBe('body must be a JSON object');
  });

  it('names the first broken address by index, after the list’s own rules', async () => {
    t = await startApp(backends[0]!);
    const list = Array.from({ length: 12 }, (_, i) => addressOf(i + 1));
    list[11] = '0x1234';
    list[3] = 42 as unknown as string;
    expect(await messageOf({ ...valid, wallet_addresses: list })).toBe(
      'wallet_addresses[3] must be a valid address (0x followed by 40 hex digits)',
    );
    expect(await messageOf({ ...valid, wallet_addresses: ['nope', ...Array(1000).fill(addressOf(1))] })).toBe(
      'wallet_addresses must have at most 1,000 entries',
    );
    expect(await messageOf({ ...valid, wallet_addresses: 'not a list' })).toBe(
      'wallet_addresses must be an array of addresses',
    );
  });

  it('does not coerce bodies; null target_path is absent; target_path rules in order', async () => {
    t = await startApp(backends[0]!);
    expect(await messageOf({ ...valid, title: 123 })).toBe('title must be a string');
    expect(await messageOf({ ...valid, app_url: ['a'] })).toBe('app_url must be a string');
    expect(await messageOf({ ...valid, target_path: `x${'/'.repeat(500)}` })).toBe(
      'target_path must be at most 500 characters',
    );
    expect(await messageOf({ ...valid, target_path: '//evil.example' })).toBe(
      "target_path must not start with '//' or '/\\' (it would leave the app's origin)",
    );
    expect((await send({ ...valid, target_path: null })).statusCode).toBe(200);
  });

  it('query strings: integers are decimal digits, booleans true or false', async () => {
    t = await startApp(backends[0]!);
    const users = async (query: string) =>
      t.app.inject({ method: 'GET', url: `${USERS}?${query}`, headers: { 'x-api-key': t.apiKey } });
    const app = `app_url=${encodeURIComponent(APP_URL)}`;
    for (const limit of ['1e2', '0x10', '%205', '1.5', 'abc', ''])
      expect((await users(`${app}&limit=${limit}`)).json().message, limit).toBe('limit must be an integer');
    expect((await users(`${app}&limit=0`)).json().message).toBe('limit must be at least 1');
    expect((await users(`${app}&limit=7`)).statusCode).toBe(200);
    expect((await users(`${app}&notification_enabled=yes`)).json().message).toBe(
      'notification_enabled must be true or false',
    );
    expect((await users('limit=abc')).json().message).toBe('app_url is required');
  });

  it('client API: 404 for an unregistered app URL comes before the body’s other 400s', async () => {
    t = await startApp(backends[0]!, { publicUrl: 'http://platform.test' });
    const host = 'platform.test';
    const wallet = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
    const { nonce } = (
      await t.app.inject({ method: 'POST', url: '/api/v1/client/auth/nonce', headers: { host } })
    ).json();
    const message = createSiweMessage({
      address: wallet.address,
      chainId: 31337,
      domain: host,
      nonce,
      uri: `http://${host}/`,
      version: '1',
    });
    const verified = await t.app.inject({
      method: 'POST',
      url: '/api/v1/client/auth/verify',
      headers: { host },
      payload: { message, signature: await wallet.signMessage({ message }) },
    });
    const auth = { authorization: `Bearer ${verified.json().token}` };
    const post = (url: string, payload: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/client/apps/${url}`,
        headers: auth,
        payload: payload as object,
      });
    const unregistered = await post('pin', {
      app_url: 'https://nobody.example',
      notifications_enabled: 'yes',
    });
    expect([unregistered.statusCode, unregistered.json().message]).toEqual([
      404,
      'https://nobody.example is not a registered app',
    ]);
    const broken = await post('pin', { app_url: 'ftp://x', notifications_enabled: 'yes' });
    expect([broken.statusCode, broken.json().message]).toEqual([
      400,
      'app_url must be an absolute http(s) URL',
    ]);
    const badFlag = await post('pin', { app_url: APP_URL, notifications_enabled: 'yes' });
    expect([badFlag.statusCode, badFlag.json().message]).toEqual([
      400,
      'notifications_enabled must be true or false',
    ]);
    for (const enabled of [undefined, null, 'true'])
      expect((await post('notifications', { app_url: APP_URL, enabled })).json().message).toBe(
        'enabled must be true or false',
      );
    const inbox = (query: string) =>
      t.app.inject({ method: 'GET', url: `/api/v1/client/notifications?${query}`, headers: auth });
    expect((await inbox('limit=1e2&unread=maybe')).json().message).toBe('limit must be an integer');
    expect((await inbox('unread=maybe')).json().message).toBe('unread must be true or false');
    expect((await inbox('limit=5000')).statusCode).toBe(200); // clamped to 200, not refused
  });
});
