/**
 * verifyWebhook: a header signed as the platform signs (computed here with node:crypto, apart from
 * the SDK's Web Crypto code) passes; a forged, altered, wrong-secret or stale (> 5 min) one fails
 * with the reason; after a rotation either secret verifies the two-signature header.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../src/index.js';

const secret = 'whsec_test_secret';
const body = JSON.stringify({
  id: '01JTESTEVENT0000000000000',
  event: 'miniapp_added',
  appUrl: 'https://app.example',
  walletAddress: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  notificationsEnabled: true,
  timestamp: '2026-11-27T08:00:00.000Z',
});
const sign = (key: string, t: number, text = body) =>
  createHmac('sha256', key).update(`${t}.${text}`).digest('hex');
const now = () => Math.floor(Date.now() / 1000);

async function reason(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  return 'accepted';
}

describe('verifyWebhook', () => {
  it('accepts the platform signature and returns the event; string or bytes', async () => {
    const t = now();
    const header = `t=${t},v1=${sign(secret, t)}`;
    expect(await verifyWebhook(body, header, secret)).toEqual(JSON.parse(body));
    expect(await verifyWebhook(new TextEncoder().encode(body), [header], secret)).toEqual(JSON.parse(body));
  });

  it('rejects a forged signature, an altered body and the wrong secret', async () => {
    const t = now();
    expect(await reason(verifyWebhook(body, `t=${t},v1=${sign('whsec_attacker', t)}`, secret))).toBe(
      'bad-signature',
    );
    expect(
      await reason(verifyWebhook(body.replace('true', 'false'), `t=${t},v1=${sign(secret, t)}`, secret)),
    ).toBe('bad-signature');
    expect(await reason(verifyWebhook(body, `t=${t},v1=${sign(secret, t)}`, 'whsec_other'))).toBe(
      'bad-signature',
    );
    // The signature covers t: moving t to now while keeping an old signature fails.
    expect(await reason(verifyWebhook(body, `t=${t},v1=${sign(secret, t - 400)}`, secret))).toBe(
      'bad-signature',
    );
  });

  it('rejects a stale signature (more than 5 minutes), and one from the future', async () => {
    const old = now() - 301;
    expect(await reason(verifyWebhook(body, `t=${old},v1=${sign(secret, old)}`, secret))).toBe('stale');
    const future = now() + 301;
    expect(await reason(verifyWebhook(body, `t=${future},v1=${sign(secret, future)}`, secret))).toBe('stale');
    const t = now();
    const header = `t=${t},v1=${sign(secret, t)}`;
    expect(await reason(verifyWebhook(body, header, secret, { now: Date.now() + 6 * 60_000 }))).toBe('stale');
    expect(await reason(verifyWebhook(body, header, secret, { now: Date.now() + 4 * 60_000 }))).toBe(
      'accepted',
    );
  });

  it('rejects a missing or malformed header', async () => {
    expect(await reason(verifyWebhook(body, undefined, secret))).toBe('missing-header');
    expect(await reason(verifyWebhook(body, '', secret))).toBe('missing-header');
    expect(await reason(verifyWebhook(body, 'v1=abc', secret))).toBe('malformed-header');
    expect(await reason(verifyWebhook(body, `t=${now()}`, secret))).toBe('malformed-header');
    expect(await reason(verifyWebhook(body, `t=${now()},v1=nothex`, secret))).toBe('malformed-header');
  });

  it('after a rotation, the header carries both signatures and either secret verifies it', async () => {
    const t = now();
    const header = `t=${t},v1=${sign('whsec_new', t)},v1=${sign('whsec_old', t)}`;
    expect(await reason(verifyWebhook(body, header, 'whsec_new'))).toBe('accepted');
    expect(await reason(verifyWebhook(body, header, 'whsec_old'))).toBe('accepted');
    expect(await reason(verifyWebhook(body, header, 'whsec_neither'))).toBe('bad-signature');
  });
});
