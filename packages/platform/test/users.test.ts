/** Users list and user status: pagination, limits, the filter, cursors, and a walk under churn. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { APP_URL, addressOf, backends, cleanupBackends, startApp, type TestApp } from './helpers.js';

afterAll(cleanupBackends);

const USERS = '/api/v1/notifications/app/users';
const STATUS = '/api/v1/notifications/app/user/status';

describe.each(backends)('users on $name', (backend) => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  const page = (query: Record<string, string | number | boolean | undefined>) => {
    const params = new URLSearchParams({ app_url: APP_URL });
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
    return t.app.inject({ method: 'GET', url: `${USERS}?${params}`, headers: { 'x-api-key': t.apiKey } });
  };

  async function walk(query: Record<string, string | number | boolean> = {}, between?: () => Promise<void>) {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await page({ ...query, cursor });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      seen.push(...body.users.map((u: { address: string }) => u.address));
      cursor = body.nextCursor;
      if (between) await between();
    } while (cursor);
    return seen;
  }

  it('pages in pin order with nextCursor absent on the last page; default 100', async () => {
    t = await startApp(backend);
    for (let i = 1; i <= 250; i++) await t.pin(addressOf(i), i % 2 === 0);
    const first = (await page({})).json();
    expect(first.success).toBe(true);
    expect(first.users).toHaveLength(100);
    expect(first.users[0]).toEqual({ address: addressOf(1), notificationsEnabled: false });
    expect(first.users[1]).toEqual({ address: addressOf(2), notificationsEnabled: true });
    expect(typeof first.nextCursor).toBe('string');
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const all = await walk({ limit: 100 });
    expect(all).toEqual(Array.from({ length: 250 }, (_, i) => addressOf(i + 1)));
    const last = (await page({ limit: 250 })).json();
    expect(last.users).toHaveLength(250);
    expect('nextCursor' in last).toBe(false);
  });

  it('limit: 500 answers 500, 501 is clamped to 500, <1 and non-integers are 400', async () => {
    t = await startApp(backend);
    const now = Date.now();
    const db = t.app.platform.database.db;
    const rows = Array.from({ length: 600 }, (_, i) => ({
      app_url: APP_URL,
      address: addressOf(i + 1),
      pinned: 1,
      notifications_enabled: 1,
      sort_at: now + i,
      pinned_at: now + i,
      updated_at: now + i,
    }));
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto('pins')
        .values(rows.slice(i, i + 200))
        .execute();
    expect((await page({ limit: 500 })).json().users).toHaveLength(500);
    expect((await page({ limit: 501 })).json().users).toHaveLength(500);
    expect((await page({ limit: 100000 })).json().users).toHaveLength(500);
    expect((await page({ limit: 1 })).json().users).toHaveLength(1);
    for (const bad of ['0', '-1', '1.5', 'ten', '', '1e2']) {
      const res = await page({ limit: bad });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().message).toMatch(/^limit must be/);
    }
  });

  it('notification_enabled=true filters; false means no filter; anything else is 400', async () => {
    t = await startApp(backend);
    for (let i = 1; i <= 6; i++) await t.pin(addressOf(i), i <= 2);
    await t.app.platform.preferences.unpin(APP_URL, addressOf(6), Date.now());
    expect(await walk({ notification_enabled: true, limit: 1 })).toEqual([addressOf(1), addressOf(2)]);
    expect(await walk({ notification_enabled: false, limit: 2 })).toHaveLength(5);
    expect(await walk({ limit: 2 })).toHaveLength(5);
    expect((await page({ notification_enabled: 'yes' })).statusCode).toBe(400);
  });

  it('a bad cursor, or one from another query, is 400', async () => {
    t = await startApp(backend);
    for (let i = 1; i <= 3; i++) await t.pin(addressOf(i));
    const cursor = (await page({ limit: 1 })).json().nextCursor as string;
    expect((await page({ limit: 1, cursor })).statusCode).toBe(200);
    for (const bad of ['garbage!', 'eyJ2IjoyfQ', `${cursor}x`.replace(/.$/, '@')]) {
      const res = await page({ cursor: bad });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/^cursor /);
    }
    const other = await page({ cursor, notification_enabled: true });
    expect(other.statusCode).toBe(400);
    expect(other.json().message).toContain('different query');
  });

  it('a walk under concurrent pins and unpins visits each user pinned throughout exactly once', async () => {
    t = await startApp(backend);
    const stable = Array.from({ length: 120 }, (_, i) => addressOf(i + 1));
    const churn = Array.from({ length: 40 }, (_, i) => addressOf(1000 + i));
    for (let i = 0; i < 160; i++)
      await t.pin(i % 4 === 3 ? churn[(i - 3) / 4]! : stable[i - Math.floor(i / 4)]!);
    let n = 0;
    const seen = await walk({ limit: 7 }, async () => {
      // Between pages: unpin and re-pin some churners, pin newcomers, toggle notifications.
      const p = t.app.platform.preferences;
      const now = Date.now();
      await Promise.all([
        p.unpin(APP_URL, churn[n % churn.length]!, now),
        p.pin(APP_URL, churn[(n + 20) % churn.length]!, { now }),
        p.pin(APP_URL, addressOf(5000 + n), { now: now + 1 }),
        p.setNotifications(APP_URL, stable[(n * 7) % stable.length]!, n % 2 === 0, now),
      ]);
      n++;
    });
    const counts = new Map<string, number>();
    for (const a of seen) counts.set(a, (counts.get(a) ?? 0) + 1);
    for (const a of stable) expect(counts.get(a), a).toBe(1);
    for (const [a, c] of counts) expect(c, a).toBe(1);
  });

  it('status: the three states, any letter case, EIP-55 lookup', async () => {
    t = await startApp(backend);
    const checksummed = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
    const status = async (wallet: string) =>
      (
        await t.app.inject({
          method: 'POST',
          url: STATUS,
          headers: { 'x-api-key': t.apiKey },
          payload: { app_url: APP_URL, wallet_address: wallet },
        })
      ).json();
    expect(await status(checksummed)).toEqual({ appPinned: false, notificationsEnabled: false });
    await t.pin(checksummed, false);
    expect(await status(checksummed.toLowerCase())).toEqual({ appPinned: true, notificationsEnabled: false });
    await t.app.platform.preferences.setNotifications(APP_URL, checksummed, true, Date.now());
    expect(await status(`0x${checksummed.slice(2).toUpperCase()}`)).toEqual({
      appPinned: true,
      notificationsEnabled: true,
    });
    await t.app.platform.preferences.unpin(APP_URL, checksummed, Date.now());
    expect(await status(checksummed)).toEqual({ appPinned: false, notificationsEnabled: false });
  });
});
