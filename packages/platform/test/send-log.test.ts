/**
 * The send log on the dashboard API: a send with the project's key and a dashboard test send are
 * listed (newest first, paginated) with their counts and per-address results; only the project's
 * owner (and the operator, on the admin API) sees them; a send whose inbox write fails leaves no row (same transaction); sends older
 * than `sendLogDays` are pruned (injected clock).
 */
import { sql } from 'kysely';
import { privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { addressOf, backends, cleanupBackends, startApp, type TestApp } from './helpers.js';

afterAll(cleanupBackends);

const HOST = 'platform.test';
const BASE = '/api/v1/dashboard';
const HOUR = 60 * 60 * 1000;
const alice = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const bob = privateKeyToAccount('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const APP = 'https://log.example';

/** Dashboard sign-in with a message dated by the server's (injected) clock. */
async function signIn(t: TestApp, account: typeof alice, now: number): Promise<string> {
  const nonce = await t.app.inject({ method: 'POST', url: `${BASE}/auth/nonce`, headers: { host: HOST } });
  const message = createSiweMessage({
    address: account.address,
    chainId: 31337,
    domain: HOST,
    nonce: nonce.json().nonce,
    uri: `http://${HOST}/`,
    version: '1',
    issuedAt: new Date(now),
    expirationTime: new Date(now + 10 * 60_000),
  });
  const signature = await account.signMessage({ message });
  const res = await t.app.inject({
    method: 'POST',
    url: `${BASE}/auth/verify`,
    headers: { host: HOST },
    payload: { message, signature },
  });
  expect(res.statusCode).toBe(200);
  return res.json().token;
}

describe.each(backends)('send log on $name', (backend) => {
  it('lists key and dashboard sends to their owner only, pages them, and prunes them after N days', async () => {
    let now = Date.UTC(2026, 10, 27, 9, 0, 0);
    const t = await startApp(backend, { publicUrl: `http://${HOST}`, clock: () => now, sendLogDays: 1 });
    onTestFinished(() => t.close());
    const { apiKey, projectId } = await t.app.platform.admin.createProject({
      name: 'Alice app',
      appUrl: APP,
      owner: alice.address,
      whitelisted: true,
    });
    const [enabled, disabled, stranger] = [addressOf(1), addressOf(2), addressOf(3)];
    await t.app.platform.preferences.pin(APP, enabled, { notificationsEnabled: true, now });
    await t.app.platform.preferences.pin(APP, disabled, { notificationsEnabled: false, now });

    const viaKey = await t.app.inject({
      method: 'POST',
      url: '/api/v1/notifications/send',
      headers: { 'x-api-key': apiKey },
      payload: {
        app_url: APP,
        wallet_addresses: [enabled, disabled, stranger],
        title: 'Via key',
        message: 'From the back end',
        target_path: '/promo',
      },
    });
    expect(viaKey.statusCode).toBe(200);
    expect(viaKey.json()).toMatchObject({ sentCount: 1, failedCount: 2 });

    now += 12 * HOUR;
    const token = await signIn(t, alice, now);
    const auth = { authorization: `Bearer ${token}` };
    const viaDashboard = await t.app.inject({
      method: 'POST',
      url: `${BASE}/projects/${projectId}/send`,
      headers: auth,
      payload: { app_url: APP, wallet_addresses: [enabled], title: 'Via dashboard', message: 'A test' },
    });
    expect(viaDashboard.statusCode).toBe(200);

    const sends = `${BASE}/projects/${projectId}/sends`;
    const list = await t.app.inject({ method: 'GET', url: sends, headers: auth });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      sends: [
        {
          id: expect.any(String),
          createdAt: new Date(now).toISOString(),
          appUrl: APP,
          title: 'Via dashboard',
          targetPath: null,
          sentBy: 'dashboard',
          sentCount: 1,
          failedCount: 0,
          results: [{ walletAddress: enabled, sent: true }],
        },
        {
          id: expect.any(String),
          createdAt: new Date(now - 12 * HOUR).toISOString(),
          appUrl: APP,
          title: 'Via key',
          targetPath: '/promo',
          sentBy: 'key',
          sentCount: 1,
          failedCount: 2,
          results: [
            { walletAddress: enabled, sent: true },
            { walletAddress: disabled, sent: false, failureReason: 'user has notifications disabled' },
            { walletAddress: stranger, sent: false, failureReason: 'user has not saved this app' },
          ],
        },
      ],
    });

    // Pages: newest first, `before` = the previous page's nextCursor.
    const first = (await t.app.inject({ method: 'GET', url: `${sends}?limit=1`, headers: auth })).json();
    expect(first.sends.map((s: { title: string }) => s.title)).toEqual(['Via dashboard']);
    const second = (
      await t.app.inject({ method: 'GET', url: `${sends}?limit=1&before=${first.nextCursor}`, headers: auth })
    ).json();
    expect(second.sends.map((s: { title: string }) => s.title)).toEqual(['Via key']);
    expect(second.nextCursor).toBeUndefined();
    const badLimit = await t.app.inject({ method: 'GET', url: `${sends}?limit=0`, headers: auth });
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.json().message).toContain('limit');
    expect((await t.app.inject({ method: 'GET', url: `${sends}?before=x`, headers: auth })).statusCode).toBe(
      400,
    );

    // Another developer sees neither the log nor that the project exists; no token is 401.
    const bobToken = await signIn(t, bob, now);
    const asBob = await t.app.inject({
      method: 'GET',
      url: sends,
      headers: { authorization: `Bearer ${bobToken}` },
    });
    expect(asBob.statusCode).toBe(404);
    expect(asBob.body).not.toContain('Via key');
    expect((await t.app.inject({ method: 'GET', url: sends })).statusCode).toBe(401);
    // The operator reads any project's log on the admin API.
    const operator = await t.app.inject({
      method: 'GET',
      url: `/api/v1/admin/projects/${projectId}/sends?limit=5`,
      headers: { authorization: 'Bearer admin-token-for-tests' },
    });
    expect(operator.statusCode).toBe(200);
    expect(operator.json()).toEqual(list.json());

    // Retention 1 day: the key send (25 h old) goes, the dashboard send (13 h) stays.
    now += 13 * HOUR;
    await t.app.platform.pruneSendLog();
    const fresh = await signIn(t, alice, now);
    const kept = await t.app.inject({
      method: 'GET',
      url: sends,
      headers: { authorization: `Bearer ${fresh}` },
    });
    expect(kept.json().sends.map((s: { title: string }) => s.title)).toEqual(['Via dashboard']);
  });

  it('writes the log row in the transaction of the inbox write: when it fails, nothing is stored', async () => {
    const t = await startApp(backend, {}, { appUrl: APP });
    onTestFinished(() => t.close());
    await t.pin(addressOf(7));
    const db = t.app.platform.database.db;
    // Make the send log refuse its next row: the notifications of that send must roll back with it.
    if (backend.name === 'sqlite')
      await sql`create trigger refuse_log before insert on send_log begin select raise(abort, 'refused'); end`.execute(
        db,
      );
    else {
      await sql`create function refuse_log() returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`.execute(
        db,
      );
      await sql`create trigger refuse_log before insert on send_log for each row execute function refuse_log()`.execute(
        db,
      );
    }
    const send = (title: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/v1/notifications/send',
        headers: { 'x-api-key': t.apiKey },
        payload: { app_url: APP, wallet_addresses: [addressOf(7)], title, message: 'm' },
      });
    expect((await send('Refused')).statusCode).toBe(503);
    expect(await db.selectFrom('notifications').selectAll().execute()).toHaveLength(0);
    expect(await db.selectFrom('notification_outbox').selectAll().execute()).toHaveLength(0);

    if (backend.name === 'sqlite') await sql`drop trigger refuse_log`.execute(db);
    else await sql`drop trigger refuse_log on send_log`.execute(db);
    expect((await send('Stored')).statusCode).toBe(200);
    expect(await db.selectFrom('notifications').select('title').execute()).toEqual([{ title: 'Stored' }]);
    expect(await db.selectFrom('send_log').select(['title', 'sent_by']).execute()).toEqual([
      { title: 'Stored', sent_by: 'key' },
    ]);
  });
});
