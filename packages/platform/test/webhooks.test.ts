/**
 * Webhooks for app developers, against a real HTTP receiver: exactly one event per real transition
 * (none for a no-op, one for racing first pins), every event after a 30 s outage in order per
 * wallet, nothing lost across a restart, signatures, rotation, resend, the delivery log, and the
 * URL rules (http/https only; private addresses refused with webhookBlockPrivate).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { buildPlatformApp, type PlatformServerOptions } from '../src/index.js';
import {
  APP_URL,
  addressOf,
  backends,
  baseOptions,
  cleanupBackends,
  startApp,
  type TestApp,
} from './helpers.js';
import { type Receiver, signedBy, startReceiver } from './support/receiver.js';

afterAll(cleanupBackends);

const admin = { authorization: `Bearer ${baseOptions.adminToken}` };
const fast: Partial<PlatformServerOptions> = { webhookRetryScheduleMs: [200, 500, 1000], webhookPollMs: 100 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function setWebhook(t: TestApp, url: string) {
  const res = await t.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/projects/${t.projectId}/webhook`,
    headers: admin,
    payload: { url },
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { url: string; secret?: string };
}

async function deliveries(t: TestApp) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/admin/projects/${t.projectId}/webhook/deliveries?limit=200`,
    headers: admin,
  });
  expect(res.statusCode).toBe(200);
  return res.json().deliveries as Array<Record<string, any>>;
}

describe.each(backends)('webhooks on $name', (backend) => {
  let t: TestApp | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
    t = undefined;
    receiver = undefined;
  });

  it('sends exactly one signed event per real transition and none for a no-op', async () => {
    receiver = await startReceiver();
    t = await startApp(backend, fast);
    const { secret } = await setWebhook(t, receiver.url);
    expect(secret).toMatch(/^whsec_/);
    const prefs = t.app.platform.preferences;
    const a = addressOf(1);
    let now = Date.now();
    const steps: Array<[() => Promise<unknown>, string | null]> = [
      [() => prefs.pin(APP_URL, a, { now: now++ }), 'miniapp_added:true'],
      [() => prefs.pin(APP_URL, a, { now: now++ }), null],
      [() => prefs.setNotifications(APP_URL, a, false, now++), 'notifications_disabled:false'],
      [() => prefs.setNotifications(APP_URL, a, false, now++), null],
      [() => prefs.pin(APP_URL, a, { now: now++ }), null],
      [() => prefs.setNotifications(APP_URL, a, true, now++), 'notifications_enabled:true'],
      [
        () => prefs.pin(APP_URL, a, { notificationsEnabled: false, now: now++ }),
        'notifications_disabled:false',
      ],
      [() => prefs.unpin(APP_URL, a, now++), 'miniapp_removed:false'],
      [() => prefs.unpin(APP_URL, a, now++), null],
      [() => prefs.setNotifications(APP_URL, a, true, now++), null],
      [() => prefs.pin(APP_URL, a, { notificationsEnabled: false, now: now++ }), 'miniapp_added:false'],
    ];
    for (const [step] of steps) await step();
    const expected = steps.flatMap(([, e]) => (e ? [e] : []));
    const got = await receiver.waitFor(expected.length);
    await sleep(700); // and nothing more arrives
    expect(receiver.received).toHaveLength(expected.length);
    expect(got.map((r) => `${r.json.event}:${r.json.notificationsEnabled}`)).toEqual(expected);
    for (const r of got) {
      expect(signedBy(secret!, r.signature, r.body)).toBe(true);
      expect(signedBy('whsec_wrong', r.signature, r.body)).toBe(false);
      expect(Object.keys(r.json).sort()).toEqual(
        ['appUrl', 'event', 'id', 'notificationsEnabled', 'timestamp', 'walletAddress'].sort(),
      );
      expect(r.json).toMatchObject({ appUrl: APP_URL, walletAddress: a });
      expect(Number.isNaN(Date.parse(r.json.timestamp))).toBe(false);
      const t0 = Number(/t=(\d+)/.exec(r.signature)![1]);
      expect(Math.abs(t0 - Date.now() / 1000)).toBeLessThan(10);
    }
    expect(new Set(got.map((r) => r.json.id)).size).toBe(got.length);

    // Five racing first pins of another wallet are one transition: one miniapp_added.
    const b = addressOf(2);
    await Promise.all([1, 2, 3, 4, 5].map((i) => prefs.pin(APP_URL, b, { now: now + i })));
    await receiver.waitFor(expected.length + 1);
    await sleep(700);
    expect(receiver.received.slice(expected.length).map((r) => [r.json.event, r.json.walletAddress])).toEqual(
      [['miniapp_added', b]],
    );

    const log = await deliveries(t);
    expect(log).toHaveLength(expected.length + 1);
    expect(log.every((d) => d.status === 'delivered' && d.attempts === 1 && d.lastStatusCode === 200)).toBe(
      true,
    );
  });

  it('queues nothing while a project has no webhook', async () => {
    receiver = await startReceiver();
    t = await startApp(backend, fast);
    await t.pin(addressOf(9));
    await setWebhook(t, receiver.url);
    await t.pin(addressOf(10));
    await receiver.waitFor(1);
    await sleep(500);
    expect(receiver.received.map((r) => r.json.walletAddress)).toEqual([addressOf(10)]);
  });

  it('delivers every event after the receiver was down for a while, in order per wallet', async () => {
    const downMs = backend.name === 'sqlite' ? 30_000 : 5_000;
    receiver = await startReceiver();
    t = await startApp(backend, fast);
    await setWebhook(t, receiver.url);
    await receiver.down();
    const prefs = t.app.platform.preferences;
    const wallets = [addressOf(21), addressOf(22), addressOf(23)];
    let now = Date.now();
    const expected = new Map<string, string[]>(wallets.map((w) => [w, []]));
    for (let round = 0; round < 3; round++) {
      for (const w of wallets) {
        await prefs.pin(APP_URL, w, { now: now++ });
        await prefs.setNotifications(APP_URL, w, false, now++);
        await prefs.unpin(APP_URL, w, now++);
        expected.get(w)!.push('miniapp_added', 'notifications_disabled', 'miniapp_removed');
      }
    }
    await sleep(downMs);
    const during = await deliveries(t);
    expect(during.every((d) => d.status === 'pending')).toBe(true);
    // Only the head of each wallet's queue was tried; it was tried more than once.
    const tried = during.filter((d) => d.attempts > 0);
    expect(tried).toHaveLength(wallets.length);
    expect(tried.every((d) => d.attempts >= 2 && d.lastStatusCode === null && d.lastError)).toBe(true);

    await receiver.up();
    const got = await receiver.waitFor(27, 30_000);
    for (const w of wallets) {
      expect(got.filter((r) => r.json.walletAddress === w).map((r) => r.json.event)).toEqual(expected.get(w));
    }
    // The receiver has them all; each attempt's result is recorded just after.
    await expect
      .poll(async () => (await deliveries(t!)).every((d) => d.status === 'delivered'), { timeout: 5000 })
      .toBe(true);
  }, 90_000);

  it('loses nothing across a restart between the event and its delivery', async () => {
    receiver = await startReceiver();
    const store = await backend.fresh();
    const options = { ...baseOptions, ...store, ...fast };
    let app = await buildPlatformApp(options);
    try {
      const { projectId } = await app.platform.admin.createProject({
        name: 'Restart',
        appUrl: APP_URL,
        whitelisted: true,
      });
      const { secret } = await app.platform.admin.setWebhook(projectId, receiver.url);
      await app.ready();
      // One event waits for its retry (the receiver is down); one is in flight when the server stops.
      await receiver.down();
      await app.platform.preferences.pin(APP_URL, addressOf(31), { now: Date.now() });
      await sleep(300);
      await receiver.up();
      receiver.answer = 'hang';
      await app.platform.preferences.pin(APP_URL, addressOf(32), { now: Date.now() });
      await sleep(800);
      await app.close();

      receiver.answer = 200;
      app = await buildPlatformApp(options);
      await app.ready();
      const got = await receiver.waitFor(2, 10_000);
      expect(got.map((r) => r.json.walletAddress).sort()).toEqual([addressOf(31), addressOf(32)].sort());
      expect(got.every((r) => signedBy(secret!, r.signature, r.body))).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('rotates the secret (the old one signs for a grace period), resends, and keeps secrets out of reads', async () => {
    receiver = await startReceiver();
    t = await startApp(backend, fast);
    const first = await setWebhook(t, receiver.url);
    // Changing the URL keeps the secret (and does not show it again).
    expect((await setWebhook(t, receiver.url)).secret).toBeUndefined();
    const rotated = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/projects/${t.projectId}/webhook/secret/rotate`,
      headers: admin,
    });
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json().secret as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first.secret);
    const info = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/projects/${t.projectId}/webhook`,
      headers: admin,
    });
    expect(info.json()).toMatchObject({ url: receiver.url, previousSecretExpiresAt: expect.any(String) });
    expect(info.body).not.toContain('whsec_');

    await t.pin(addressOf(41));
    const [r] = await receiver.waitFor(1);
    expect(signedBy(second, r!.signature, r!.body)).toBe(true);
    expect(signedBy(first.secret!, r!.signature, r!.body)).toBe(true);

    // The receiver has it; the attempt's result is recorded just after.
    await expect.poll(async () => (await deliveries(t!))[0]?.status, { timeout: 5000 }).toBe('delivered');
    const [delivered] = await deliveries(t);
    const resent = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/projects/${t.projectId}/webhook/deliveries/${delivered!.id}/resend`,
      headers: admin,
    });
    expect(resent.statusCode).toBe(200);
    const again = await receiver.waitFor(2);
    expect(again[1]!.body).toBe(again[0]!.body);
    await expect
      .poll(async () => (await deliveries(t!))[0], { timeout: 5000 })
      .toMatchObject({ status: 'delivered', attempts: 2 });

    const missing = await t.app.inject({
      method: 'POST',
      url: `/api/v1/admin/projects/${t.projectId}/webhook/deliveries/nope/resend`,
      headers: admin,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('retries a non-2xx answer and records the status in the log', async () => {
    receiver = await startReceiver();
    receiver.answer = 500;
    t = await startApp(backend, fast);
    await setWebhook(t, receiver.url);
    await t.pin(addressOf(51));
    await expect
      .poll(async () => (await deliveries(t!))[0]?.attempts ?? 0, { timeout: 5000 })
      .toBeGreaterThanOrEqual(2);
    const [entry] = await deliveries(t);
    expect(entry).toMatchObject({ status: 'pending', lastStatusCode: 500, lastError: 'answered 500' });
    receiver.answer = 200;
    await receiver.waitFor(1);
  });

  it('refuses webhook URLs that are not http(s), and private addresses with webhookBlockPrivate', async () => {
    t = await startApp(backend, { ...fast, webhookBlockPrivate: true });
    for (const [url, message] of [
      ['ftp://example.com/x', 'url must be an absolute http(s) URL'],
      ['javascript:alert(1)', 'url must be an absolute http(s) URL'],
      ['not a url', 'url must be an absolute http(s) URL'],
      ['https://user:pw@example.com/', 'url must not carry credentials'],
      ['', 'url is required'],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/admin/projects/${t.projectId}/webhook`,
        headers: admin,
        payload: { url },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(message);
    }
    const other = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/admin/projects/01NOPE/webhook',
      headers: admin,
      payload: { url: 'https://example.com' },
    });
    expect(other.statusCode).toBe(404);

    receiver = await startReceiver();
    await setWebhook(t, receiver.url.replace('127.0.0.1', 'localhost'));
    await t.pin(addressOf(61));
    await expect
      .poll(async () => (await deliveries(t!))[0]?.lastError ?? '', { timeout: 5000 })
      .toContain('private address');
    await setWebhook(t, receiver.url);
    await t.pin(addressOf(62));
    await expect
      .poll(async () => (await deliveries(t!))[0]?.lastError ?? '', { timeout: 5000 })
      .toContain('private address');
    expect(receiver.received).toHaveLength(0);
  });
});
