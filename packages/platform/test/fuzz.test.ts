/**
 * A fuzz pass over the platform's REST routes (issue 29): thousands of hostile requests — huge
 * numbers, deep nesting, giant arrays, wrong types, odd unicode, oversized and broken bodies, bad
 * HTTP and slow bodies — across the notification, client, dashboard and admin APIs. The server
 * stays up, no answer is a 5xx, and every error is the service's body `{success:false, error,
 * message}` with a message saying what is wrong. Seeded: a failure names its request and replays.
 */
import net from 'node:net';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_URL, backends, cleanupBackends, type ListeningApp, listenApp, rawRequest } from './helpers.js';

afterAll(cleanupBackends);

const dev = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const ADMIN = 'admin-token-for-tests';

/** mulberry32: a small seeded PRNG, so a failing case can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hostileValues(random: () => number): unknown[] {
  let deep: unknown = 'x';
  for (let i = 0; i < 2000; i++) deep = [deep];
  let deepObject: unknown = {};
  for (let i = 0; i < 500; i++) deepObject = { a: deepObject };
  return [
    null,
    true,
    false,
    0,
    -1,
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    1.5,
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\u202e\u202dreversed',
    '🦀'.repeat(40),
    'é'.repeat(31),
    'a'.repeat(20_000),
    '0x',
    '0xZZ',
    `0x${'f'.repeat(40)}`,
    `0X${'A'.repeat(40)}`,
    '//evil.example',
    '/\\evil',
    'javascript:alert(1)',
    'https://app.example.com',
    APP_URL,
    'http://localhost:5173',
    'https://[::1]:99999',
    '99999999999999999999999999999999',
    '-0',
    'NaN',
    'true',
    '1e400',
    '../../etc/passwd',
    '%00',
    '{"$ref":"#"}',
    [],
    Array.from({ length: 5000 }, (_, i) => i),
    Array.from({ length: 1001 }, () => `0x${'1'.repeat(40)}`),
    [null, {}, [], 1],
    {},
    { __proto__: { polluted: true } },
    { constructor: { prototype: { polluted: true } } },
    deep,
    deepObject,
    Math.floor(random() * 1e9),
  ];
}

const fieldsByRoute: Record<string, string[]> = {
  send: ['app_url', 'wallet_addresses', 'title', 'message', 'target_path'],
  status: ['app_url', 'wallet_address'],
  pin: ['app_url', 'notifications_enabled', 'enabled'],
  read: ['ids', 'all'],
  verify: ['message', 'signature'],
  project: ['name', 'app_url', 'whitelisted', 'owner'],
  appUrl: ['app_url'],
  whitelist: ['whitelisted'],
};

function isErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return (
    b.success === false &&
    typeof b.error === 'string' &&
    b.error !== '' &&
    typeof b.message === 'string' &&
    b.message.trim() !== ''
  );
}

describe.each(backends)('fuzz on $name', (backend) => {
  it('5,000+ hostile requests: no 5xx, every error a well-formed body, the server alive', async () => {
    const t: ListeningApp = await listenApp(backend, {
      adminToken: ADMIN,
      rateLimit: 1_000_000_000,
      clientRateLimit: 1_000_000_000,
      ipRateLimit: 1_000_000_000,
      adminRateLimit: 1_000_000_000,
      requestTimeoutMs: 1500,
      headersTimeoutMs: 1000,
    });
    try {
      // Real credentials for every realm, so the fuzz reaches the validators behind them.
      const signIn = async (realm: string) => {
        const base = `/api/v1/${realm}/auth`;
        const { nonce } = (await t.app.inject({ method: 'POST', url: `${base}/nonce` })).json();
        const host = `127.0.0.1:${t.port}`;
        const message = createSiweMessage({
          address: dev.address,
          chainId: 31337,
          version: '1',
          domain: host,
          uri: `http://${host}/`,
          nonce,
        });
        const res = await t.app.inject({
          method: 'POST',
          url: `${base}/verify`,
          payload: { message, signature: await dev.signMessage({ message }) },
        });
        return res.json().token as string;
      };
      const client = await signIn('client');
      const dashboard = await signIn('dashboard');
      const own = (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/dashboard/projects',
          headers: { authorization: `Bearer ${dashboard}` },
          payload: { name: 'Fuzz', app_url: 'https://fuzz.example' },
        })
      ).json().projectId as string;

      const targets: Array<{
        method: 'GET' | 'POST' | 'DELETE';
        url: string;
        auth: Record<string, string>;
        fields: string[];
      }> = [
        {
          method: 'POST',
          url: '/api/v1/notifications/send',
          auth: { 'x-api-key': t.apiKey },
          fields: fieldsByRoute.send!,
        },
        {
          method: 'POST',
          url: '/api/v1/notifications/app/user/status',
          auth: { 'x-api-key': t.apiKey },
          fields: fieldsByRoute.status!,
        },
        {
          method: 'GET',
          url: '/api/v1/notifications/app/users',
          auth: { 'x-api-key': t.apiKey },
          fields: ['app_url', 'limit', 'cursor', 'notification_enabled'],
        },
        { method: 'POST', url: '/api/v1/client/auth/verify', auth: {}, fields: fieldsByRoute.verify! },
        {
          method: 'POST',
          url: '/api/v1/client/apps/pin',
          auth: { authorization: `Bearer ${client}` },
          fields: fieldsByRoute.pin!,
        },
        {
          method: 'POST',
          url: '/api/v1/client/apps/unpin',
          auth: { authorization: `Bearer ${client}` },
          fields: fieldsByRoute.pin!,
        },
        {
          method: 'POST',
          url: '/api/v1/client/apps/notifications',
          auth: { authorization: `Bearer ${client}` },
          fields: fieldsByRoute.pin!,
        },
        {
          method: 'POST',
          url: '/api/v1/client/notifications/read',
          auth: { authorization: `Bearer ${client}` },
          fields: fieldsByRoute.read!,
        },
        {
          method: 'GET',
          url: '/api/v1/client/notifications',
          auth: { authorization: `Bearer ${client}` },
          fields: ['cursor', 'limit', 'unread'],
        },
        { method: 'POST', url: '/api/v1/dashboard/auth/verify', auth: {}, fields: fieldsByRoute.verify! },
        {
          method: 'POST',
          url: '/api/v1/dashboard/projects',
          auth: { authorization: `Bearer ${dashboard}` },
          fields: fieldsByRoute.project!,
        },
        {
          method: 'POST',
          url: `/api/v1/dashboard/projects/${own}/app-urls`,
          auth: { authorization: `Bearer ${dashboard}` },
          fields: fieldsByRoute.appUrl!,
        },
        {
          method: 'POST',
          url: `/api/v1/dashboard/projects/${own}/send`,
          auth: { authorization: `Bearer ${dashboard}` },
          fields: fieldsByRoute.send!,
        },
        {
          method: 'GET',
          url: `/api/v1/dashboard/projects/${own}/users`,
          auth: { authorization: `Bearer ${dashboard}` },
          fields: ['app_url', 'limit', 'cursor'],
        },
        {
          method: 'POST',
          url: '/api/v1/admin/projects',
          auth: { authorization: `Bearer ${ADMIN}` },
          fields: fieldsByRoute.project!,
        },
        {
          method: 'POST',
          url: `/api/v1/admin/projects/${t.projectId}/whitelist`,
          auth: { authorization: `Bearer ${ADMIN}` },
          fields: fieldsByRoute.whitelist!,
        },
        {
          method: 'POST',
          url: `/api/v1/admin/projects/${t.projectId}/app-urls`,
          auth: { authorization: `Bearer ${ADMIN}` },
          fields: fieldsByRoute.appUrl!,
        },
        {
          method: 'DELETE',
          url: `/api/v1/admin/projects/${'x'.repeat(300)}`,
          auth: { authorization: `Bearer ${ADMIN}` },
          fields: [],
        },
      ];

      const random = prng(29);
      const values = hostileValues(random);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
      const problems: string[] = [];
      let count = 0;

      const check = (label: string, status: number, text: string) => {
        count++;
        if (status >= 500) problems.push(`${label}: ${status} ${text.slice(0, 200)}`);
        else if (status >= 400) {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          if (!isErrorBody(body))
            problems.push(`${label}: ${status} not an error body: ${text.slice(0, 200)}`);
        }
      };

      for (let i = 0; i < 5200; i++) {
        const target = pick(targets);
        const shape = random();
        const headers: Record<string, string> = { ...target.auth };
        let payload: string | undefined;
        let url = target.url;
        if (target.method === 'GET') {
          const query = new URLSearchParams();
          for (const field of target.fields)
            if (random() < 0.7) {
              const v = pick(values);
              query.append(
                field,
                typeof v === 'string' ? v : (JSON.stringify(v)?.slice(0, 3000) ?? 'undefined'),
              );
            }
          url = `${url}?${query}`;
        } else if (shape < 0.06) {
          headers['content-type'] = 'application/json';
          payload = pick([
            '{',
            '{"a":',
            'nul',
            '[1,2',
            '"\\ud800"',
            '{"app_url":"x",}',
            '\u0000',
            '{}garbage',
          ]);
        } else if (shape < 0.09) {
          headers['content-type'] = pick([
            'text/plain',
            'application/xml',
            'multipart/form-data; boundary=x',
            'application/json; charset=utf-16',
          ]);
          payload = 'app_url=x';
        } else if (shape < 0.1) {
          headers['content-type'] = 'application/json';
          payload = JSON.stringify({ app_url: 'x'.repeat(1024 * 1024 + 10) });
        } else if (shape < 0.15) {
          headers['content-type'] = 'application/json';
          payload = JSON.stringify(pick(values)) ?? 'null';
        } else {
          const body: Record<string, unknown> = {};
          for (const field of target.fields) if (random() < 0.8) body[field] = pick(values);
          if (random() < 0.2)
            body[pick(['__proto__', 'constructor', 'extra', '\u0000', '🦀'])] = pick(values);
          headers['content-type'] = 'application/json';
          payload = JSON.stringify(body);
        }
        if (random() < 0.03)
          headers.authorization = pick(['Bearer ', 'Bearer \u00ff', 'Basic x', `Bearer ${'a'.repeat(5000)}`]);
        const res = await t.app.inject({ method: target.method, url, headers, payload });
        check(`#${i} ${target.method} ${target.url}`, res.statusCode, res.body);
      }

      // Over the socket: bytes that are not HTTP, and bodies that never finish.
      const rawOnce = (bytes: string, dripMs?: number) =>
        new Promise<string>((resolve) => {
          const socket = net.connect(t.port, '127.0.0.1');
          const chunks: Buffer[] = [];
          socket.on('data', (c) => chunks.push(c));
          socket.on('error', () => {});
          socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
          socket.write(bytes);
          if (dripMs) {
            const drip = setInterval(
              () => (socket.writable ? socket.write('x') : clearInterval(drip)),
              dripMs,
            );
            socket.on('close', () => clearInterval(drip));
          } else setTimeout(() => socket.end(), 300);
        });
      const garbage = [
        'GARBAGE\r\n\r\n',
        'GET / HTTP/9.9\r\n\r\n',
        'POST /api/v1/notifications/send HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n',
        'POST /api/v1/notifications/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
        `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        'GET /\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
      ];
      const rawAnswers = await Promise.all([
        ...garbage.map((g) => rawOnce(g)),
        ...Array.from({ length: 10 }, () =>
          rawOnce(
            `POST /api/v1/notifications/send HTTP/1.1\r\nHost: x\r\nx-api-key: ${t.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
            200,
          ),
        ),
      ]);
      for (const [i, answer] of rawAnswers.entries()) {
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
        const body = answer.split('\r\n\r\n').slice(1).join('\r\n\r\n');
        if (status === 0) problems.push(`raw #${i}: no HTTP answer: ${JSON.stringify(answer.slice(0, 100))}`);
        else check(`raw #${i}`, status, body);
      }

      expect(problems.slice(0, 20)).toEqual([]);
      expect(count).toBeGreaterThanOrEqual(5000);
      expect((await rawRequest(`${t.url}/healthz`)).status).toBe(200);
    } finally {
      await t.close();
    }
  }, 300_000);
});
