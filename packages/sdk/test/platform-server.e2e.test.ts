/**
 * The SDK's three clients against a real platform (`wharf serve`, the built CLI): the operator
 * makes a project with the dashboard client, a developer sends with the notifications client, a
 * wallet signs in, pins and reads its live stream with the platform client. Every error answer
 * reaches `WharfApiError` with the HTTP status, the spec's `error` and the platform's registry
 * `code`.
 */
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDashboardClient,
  createNotificationsClient,
  createPlatformClient,
  type PlatformNotification,
  WharfApiError,
} from '../src/index.js';
import { cliBuilt, type RunningPlatform, startPlatform } from './support/platformServer.js';

const appUrl = 'http://localhost:5173';
const wallet = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const other = '0x00000000000000000000000000000000000000aa';

async function caught(promise: Promise<unknown>): Promise<WharfApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WharfApiError);
  return error as WharfApiError;
}

describe.skipIf(!cliBuilt)('the SDK against wharf serve', () => {
  let platform: RunningPlatform;
  let apiKey: string;
  let projectId: string;

  beforeAll(async () => {
    platform = await startPlatform(['--rate-limit', '600']);
    const operator = createDashboardClient({
      baseUrl: platform.url,
      role: 'operator',
      token: platform.adminToken,
    });
    const created = await operator.createProject({ name: 'SDK test', appUrl });
    ({ apiKey, projectId } = created);
    expect(created).toMatchObject({ appUrls: [appUrl], whitelisted: false });
    expect(await operator.setWhitelisted(projectId, true)).toMatchObject({ whitelisted: true, hasKey: true });
    expect((await operator.projects()).map((p) => p.projectId)).toEqual([projectId]);
  }, 60_000);
  afterAll(() => platform?.stop());

  it('error answers carry the status, the spec’s error and the platform’s code', async () => {
    const noKey = createNotificationsClient({ baseUrl: platform.url, apiKey: 'wharf_not-a-key' });
    expect(await caught(noKey.userStatus({ appUrl, walletAddress: other }))).toMatchObject({
      status: 401,
      error: 'Unauthorized',
      code: 'API_KEY_INVALID',
    });

    const client = createNotificationsClient({ baseUrl: platform.url, apiKey, retry: { retries: 0 } });
    const tooLong = await caught(
      client.send({ appUrl, walletAddresses: [other], title: 'x'.repeat(31), message: 'm' }),
    );
    expect(tooLong).toMatchObject({
      status: 400,
      error: 'Bad Request',
      code: 'VALIDATION_FAILED',
      message: 'title must be at most 30 characters',
    });
    expect(
      await caught(client.userStatus({ appUrl: 'https://elsewhere.example', walletAddress: other })),
    ).toMatchObject({
      status: 403,
      error: 'Forbidden',
      code: 'APP_URL_NOT_OWNED',
    });

    const badAdmin = createDashboardClient({ baseUrl: platform.url, role: 'operator', token: 'wrong' });
    expect(await caught(badAdmin.projects())).toMatchObject({ status: 401, code: 'ADMIN_TOKEN_INVALID' });
    const admin = createDashboardClient({
      baseUrl: platform.url,
      role: 'operator',
      token: platform.adminToken,
    });
    expect(await caught(admin.project('01JNOSUCHPROJECT0000000000'))).toMatchObject({
      status: 404,
      error: 'Not Found',
      code: 'NOT_FOUND',
    });
    const developer = createDashboardClient({ baseUrl: platform.url, role: 'developer' });
    expect(await caught(developer.projects())).toMatchObject({ status: 401, code: 'SESSION_INVALID' });

    const app = createPlatformClient({ baseUrl: platform.url });
    expect(await caught(app.apps())).toMatchObject({ status: 401, code: 'SESSION_INVALID' });
  });

  it('a wallet signs in, pins, and receives sends live; a reconnect resumes after Last-Event-ID', async () => {
    const app = createPlatformClient({ baseUrl: platform.url });
    const session = await app.signIn({
      address: wallet.address,
      chainId: 31337,
      signMessage: (message) => wallet.signMessage({ message }),
    });
    expect(session.address).toBe(wallet.address);
    expect(await app.pin(appUrl, { notificationsEnabled: true })).toMatchObject({
      appPinned: true,
      notificationsEnabled: true,
    });
    expect(await caught(app.setNotifications('https://not-pinned.example', true))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });

    const client = createNotificationsClient({ baseUrl: platform.url, apiKey });
    const send = (title: string) =>
      client.send({ appUrl, walletAddresses: [wallet.address.toLowerCase()], title, message: 'm' });

    const first = new AbortController();
    const got: PlatformNotification[] = [];
    const states: string[] = [];
    const live = app.stream({
      signal: first.signal,
      onNotification: (n) => got.push(n),
      onState: (s) => states.push(s),
    });
    await expect.poll(() => states.at(-1), { timeout: 10_000 }).toBe('live');
    expect(await send('one')).toMatchObject({ success: true, sentCount: 1 });
    await expect.poll(() => got.map((n) => n.title), { timeout: 10_000 }).toEqual(['one']);
    first.abort();
    await live;
    expect(states.at(-1)).toBe('closed');

    // Sent while nobody listens; the next stream resumes after the last id it saw.
    await send('two');
    await send('three');
    const second = new AbortController();
    const resumed: string[] = [];
    const again = app.stream({
      signal: second.signal,
      lastEventId: got[0]!.id,
      onNotification: (n) => resumed.push(n.title),
    });
    await expect.poll(() => resumed, { timeout: 10_000 }).toEqual(['two', 'three']);
    second.abort();
    await again;

    const page = await app.notifications({ limit: 10 });
    expect(page.notifications.map((n) => n.title)).toEqual(['three', 'two', 'one']);
    expect(page.unreadCount).toBe(3);
    expect(await app.markRead({ all: true })).toMatchObject({ updated: 3, unreadCount: 0 });

    await app.signOut();
    const ended = createPlatformClient({ baseUrl: platform.url, token: session.token });
    expect(await caught(ended.apps())).toMatchObject({ status: 401, code: 'SESSION_INVALID' });
  });
});
