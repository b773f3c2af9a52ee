/** Send: the limits on both sides of each boundary, normalization, both kinds of dedupe, storage. */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { APP_URL, addressOf, backends, cleanupBackends, startApp, type TestApp } from './helpers.js';

afterAll(cleanupBackends);

const SEND = '/api/v1/notifications/send';
// The EIP-55 example address, and its lower-case form.
const CHECKSUMMED = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

describe.each(backends)('send on $name', (backend) => {
  let t: TestApp;
  afterEach(async () => {
    await t?.close();
  });

  const send = (body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: SEND,
      headers: { 'x-api-key': t.apiKey },
      payload: {
        app_url: APP_URL,
        wallet_addresses: [addressOf(1)],
        title: 'Title',
        message: 'Message',
        ...body,
      },
    });

  it('title: 30 code points pass, 31 fail, emoji counted as one', async () => {
    t = await startApp(backend);
    const emoji30 = '🚀'.repeat(30); // 60 UTF-16 units, 30 code points
    expect((await send({ title: emoji30 })).statusCode).toBe(200);
    expect((await send({ title: 'a'.repeat(30) })).statusCode).toBe(200);
    const over = await send({ title: `${emoji30}a` });
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toBe('title must be at most 30 characters');
    expect((await send({ title: 'a'.repeat(31) })).statusCode).toBe(400);
  });

  it('message: 200 pass, 201 fail; empty after trim is missing', async () => {
    t = await startApp(backend);
    expect((await send({ message: 'm'.repeat(200) })).statusCode).toBe(200);
    expect((await send({ message: '🎉'.repeat(200) })).statusCode).toBe(200);
    const over = await send({ message: 'm'.repeat(201) });
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toBe('message must be at most 200 characters');
    expect((await send({ message: ' \n\t ' })).json().message).toBe('message is required');
    expect((await send({ message: 42 })).json().message).toBe('message must be a string');
  });

  it("target_path: 500 pass, 501 fail, must start with '/' and not '//' or '/\\'", async () => {
    t = await startApp(backend);
    expect((await send({ target_path: `/${'p'.repeat(499)}` })).statusCode).toBe(200);
    const over = await send({ target_path: `/${'p'.repeat(500)}` });
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toBe('target_path must be at most 500 characters');
    expect((await send({ target_path: '/' })).statusCode).toBe(200);
    expect((await send({ target_path: '/a//b?x=1#y' })).statusCode).toBe(200);
    for (const bad of ['//x', '/\\evil.com', 'x', '', 'https://evil.com']) {
      const res = await send({ target_path: bad });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().message).toMatch(/^target_path /);
    }
    expect((await send({ target_path: null })).statusCode).toBe(200);
  });

  it('wallet_addresses: 0 fail, 1 pass, 1,000 pass, 1,001 fail; a bad entry names its index', async () => {
    t = await startApp(backend);
    const zero = await send({ wallet_addresses: [] });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().message).toBe('wallet_addresses must have at least 1 entry');
    expect((await send({ wallet_addresses: [addressOf(1)] })).json().results).toHaveLength(1);
    const thousand = Array.from({ length: 1000 }, (_, i) => addressOf(i + 1));
    const ok = await send({ wallet_addresses: thousand });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().results).toHaveLength(1000);
    const over = await send({ wallet_addresses: [...thousand, addressOf(5000)] });
    expect(over.statusCode).toBe(400);
    expect(over.json().message).toBe('wallet_addresses must have at most 1,000 entries');
    const bad = await send({ wallet_addresses: [addressOf(1), addressOf(2), '0xnothex', addressOf(3)] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/^wallet_addresses\[2\] must be a valid address/);
    expect((await send({ wallet_addresses: [addressOf(1), 7] })).json().message).toMatch(
      /^wallet_addresses\[1\]/,
    );
    expect((await send({ wallet_addresses: 'not an array' })).statusCode).toBe(400);
  });

  it('results: one per distinct address in first-seen order, EIP-55, with the exact failure reasons', async () => {
    t = await startApp(backend);
    await t.pin(CHECKSUMMED);
    await t.pin(addressOf(2), false);
    const res = await send({
      wallet_addresses: [
        CHECKSUMMED.toLowerCase(),
        addressOf(3),
        CHECKSUMMED.toUpperCase().replace('0X', '0x'),
        addressOf(2),
        CHECKSUMMED,
      ],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: false,
      results: [
        { walletAddress: CHECKSUMMED, sent: true },
        { walletAddress: addressOf(3), sent: false, failureReason: 'user has not saved this app' },
        { walletAddress: addressOf(2), sent: false, failureReason: 'user has notifications disabled' },
      ],
      sentCount: 1,
      failedCount: 2,
    });
  });

  it('success is true only when every address was delivered', async () => {
    t = await startApp(backend);
    await t.pin(addressOf(1));
    await t.pin(addressOf(2));
    const res = await send({ wallet_addresses: [addressOf(1), addressOf(2)] });
    expect(res.json()).toMatchObject({ success: true, sentCount: 2, failedCount: 0 });
  });

  it('stores delivered notifications with the design’s fields, in one transaction with their dedupe keys', async () => {
    t = await startApp(backend);
    await t.pin(addressOf(1));
    await t.pin(addressOf(2), false);
    await send({ wallet_addresses: [addressOf(1), addressOf(2)], target_path: '/promo' });
    const db = t.app.platform.database.db;
    const rows = await db.selectFrom('notifications').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      project_id: t.projectId,
      app_url: APP_URL,
      wallet_address: addressOf(1),
      title: 'Title',
      message: 'Message',
      target_path: '/promo',
      read_at: null,
    });
    expect(rows[0]!.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(typeof rows[0]!.created_at).toBe('number');
    const keys = await db.selectFrom('dedupe_keys').selectAll().execute();
    expect(keys.map((k) => k.key)).toEqual([rows[0]!.dedupe_key]);
    expect(keys[0]!.expires_at - rows[0]!.created_at).toBe(24 * 60 * 60 * 1000);
  });

  it('dedupe across requests: an identical notification within 24 h answers sent and pushes nothing', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    t = await startApp(backend, { clock: () => now });
    await t.pin(addressOf(1));
    await t.pin(addressOf(2));
    const pushed: string[] = [];
    t.app.platform.fanout.subscribe(addressOf(1), (n) => pushed.push(n.id));
    const body = { wallet_addresses: [addressOf(1)], title: 'Sale', message: 'Today only' };

    expect((await send(body)).json()).toMatchObject({ success: true, sentCount: 1 });
    expect(pushed).toHaveLength(1);
    now += 23 * 60 * 60 * 1000;
    const repeat = await send({ ...body, wallet_addresses: [addressOf(1), addressOf(2)] });
    expect(repeat.json()).toEqual({
      success: true,
      results: [
        { walletAddress: addressOf(1), sent: true },
        { walletAddress: addressOf(2), sent: true },
      ],
      sentCount: 2,
      failedCount: 0,
    });
    expect(pushed).toHaveLength(1);
    const count = async () =>
      (await t.app.platform.database.db.selectFrom('notifications').select('id').execute()).length;
    expect(await count()).toBe(2); // addressOf(2)'s first one

    // Any differing field is a different notification.
    for (const change of [{ title: 'Sale!' }, { message: 'Tomorrow' }, { target_path: '/sale' }]) {
      await send({ ...body, ...change });
    }
    expect(pushed).toHaveLength(4);

    // After the window closes, the same notification goes out again.
    now += 60 * 60 * 1000 + 1;
    await send(body);
    expect(pushed).toHaveLength(5);
  });

  it('dedupe inside a request: concurrent identical sends store one notification', async () => {
    t = await startApp(backend);
    await t.pin(addressOf(1));
    const results = await Promise.all(
      Array.from({ length: 5 }, () => send({ wallet_addresses: [addressOf(1), addressOf(1)] })),
    );
    for (const r of results) expect(r.json()).toMatchObject({ success: true, sentCount: 1, failedCount: 0 });
    const rows = await t.app.platform.database.db.selectFrom('notifications').select('id').execute();
    expect(rows).toHaveLength(1);
  });

  it('a send to a user who has not opted in does not start a window', async () => {
    t = await startApp(backend);
    await t.pin(addressOf(1), false);
    expect((await send({})).json().results[0].sent).toBe(false);
    await t.app.platform.preferences.setNotifications(APP_URL, addressOf(1), true, Date.now());
    expect((await send({})).json().results[0].sent).toBe(true);
    const rows = await t.app.platform.database.db.selectFrom('notifications').select('id').execute();
    expect(rows).toHaveLength(1);
  });
});
