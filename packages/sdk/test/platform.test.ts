/**
 * The platform (client API) client against a stand-in server: the SIWE message it signs is the
 * one viem would produce, sessions are sent as bearer tokens, and the stream parses events,
 * reconnects with Last-Event-ID and stops on 401.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { createPlatformClient, formatSiweMessage, type PlatformNotification } from '../src/index.js';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

function json(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function sse(chunks: string[]) {
  const encoder = new TextEncoder();
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const c of chunks) controller.enqueue(encoder.encode(c));
        controller.close();
      },
    }),
    { status: 200, headers: { 'content-type': 'text/event-stream' } },
  );
}

const item = (id: string, title: string): PlatformNotification => ({
  id,
  appUrl: 'https://a.example',
  title,
  message: 'm',
  targetPath: null,
  createdAt: '2026-11-22T00:00:00.000Z',
  readAt: null,
});

describe('createPlatformClient', () => {
  it('formats SIWE messages exactly as viem does', () => {
    const fields = {
      domain: 'platform.test',
      address: account.address,
      uri: 'http://platform.test/',
      chainId: 31337,
      nonce: 'abcdefgh12345678',
      issuedAt: new Date('2026-11-22T00:00:00Z'),
      expirationTime: new Date('2026-11-22T00:10:00Z'),
    };
    expect(formatSiweMessage(fields)).toBe(createSiweMessage({ ...fields, version: '1' }));
    expect(formatSiweMessage({ ...fields, statement: 'Sign in to wharf' })).toBe(
      createSiweMessage({ ...fields, version: '1', statement: 'Sign in to wharf' }),
    );
  });

  it('signs in, then sends the session as a bearer token', async () => {
    const seen: Array<{ url: string; auth?: string; body?: any }> = [];
    const fetchImpl = (async (input: string | URL, init?: RequestInit) => {
      const url = String(input);
      const headers = (init?.headers ?? {}) as Record<string, string>;
      const body = init?.body ? JSON.parse(String(init.body)) : undefined;
      seen.push({ url, auth: headers.authorization, body });
      if (url.endsWith('/auth/nonce')) return json(200, { nonce: 'n0nce1234567' });
      if (url.endsWith('/auth/verify'))
        return json(200, { token: 'tok', address: account.address, expiresAt: 'x' });
      if (url.endsWith('/apps/pin'))
        return json(200, { appUrl: body.app_url, appPinned: true, notificationsEnabled: false });
      if (url.endsWith('/apps/notifications'))
        return json(409, { success: false, error: 'Conflict', message: 'pin first' });
      return json(200, { apps: [] });
    }) as typeof fetch;
    const client = createPlatformClient({ baseUrl: 'http://platform.test:3000', fetch: fetchImpl });
    const session = await client.signIn({
      address: account.address,
      chainId: 31337,
      signMessage: (message) => account.signMessage({ message }),
    });
    expect(session.token).toBe('tok');
    expect(client.token).toBe('tok');
    const { message, signature } = seen[1]!.body;
    const fields = parseSiweMessage(message);
    expect(fields).toMatchObject({
      domain: 'platform.test:3000',
      address: account.address,
      uri: 'http://platform.test:3000/',
      chainId: 31337,
      nonce: 'n0nce1234567',
      version: '1',
    });
    expect(await account.signMessage({ message })).toBe(signature);

    expect(await client.pin('https://a.example', { notificationsEnabled: false })).toMatchObject({
      appPinned: true,
    });
    expect(seen[2]).toMatchObject({
      auth: 'Bearer tok',
      body: { app_url: 'https://a.example', notifications_enabled: false },
    });
    await expect(client.setNotifications('https://a.example', true)).rejects.toMatchObject({
      status: 409,
      error: 'Conflict',
    });
  });

  it('streams notifications, resumes with Last-Event-ID, stops on 401', async () => {
    const requests: Array<string | undefined> = [];
    let n = 0;
    const fetchImpl = (async (_input: string | URL, init?: RequestInit) => {
      const headers = (init?.headers ?? {}) as Record<string, string>;
      requests.push(headers['last-event-id']);
      n++;
      if (n === 1) {
        return sse([
          'retry: 1\n\n',
          `id: 01A\nevent: notification\ndata: ${JSON.stringify(item('01A', 'one'))}\n\n: keep-alive\n\n`,
          `id: 01B\nevent: notifi`,
          `cation\ndata: ${JSON.stringify(item('01B', 'two'))}\n\n`,
        ]);
      }
      if (n === 2)
        return sse([`id: 01C\nevent: notification\ndata: ${JSON.stringify(item('01C', 'three'))}\n\n`]);
      return json(401, { success: false, error: 'Unauthorized', message: 'expired' });
    }) as typeof fetch;
    const client = createPlatformClient({ baseUrl: 'http://p', token: 'tok', fetch: fetchImpl });
    const got: string[] = [];
    const errors: unknown[] = [];
    await client.stream({
      onNotification: (x) => got.push(x.title),
      onError: (e) => errors.push(e),
      retryMs: 1,
    });
    expect(got).toEqual(['one', 'two', 'three']);
    expect(requests).toEqual([undefined, '01B', '01C']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ status: 401 });
  });
});
