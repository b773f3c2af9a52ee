/**
 * Verifying the webhooks wharf POSTs to a project's URL. Each request carries
 * `X-Wharf-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>` (after a secret
 * rotation, one `v1=` per live secret). Uses Web Crypto: Node ≥ 20, browsers, edge runtimes.
 */
import { WebhookVerificationError } from './errors.js';

/** The events, one per real change of a wallet's state for your app. */
export type WebhookEventName =
  | 'miniapp_added'
  | 'miniapp_removed'
  | 'notifications_enabled'
  | 'notifications_disabled';

/** The JSON body of a webhook. */
export interface WebhookEvent {
  /** The same on every retry of one event: dedupe on it (delivery is at least once). */
  id: string;
  event: WebhookEventName;
  appUrl: string;
  /** EIP-55. */
  walletAddress: string;
  /** The state after the change (false after miniapp_removed). */
  notificationsEnabled: boolean;
  /** ISO 8601: when the change happened. */
  timestamp: string;
}

export interface VerifyWebhookOptions {
  /** Seconds a signature stays acceptable after its `t`; default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** Unix milliseconds; default Date.now(). */
  now?: number;
}

/** The header's name (as Node lower-cases it). */
export const WEBHOOK_SIGNATURE_HEADER = 'x-wharf-signature';

const encoder = new TextEncoder();

function fromHex(hex: string): Uint8Array | undefined {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return undefined;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/**
 * Checks a webhook request and returns its event. `body` is the raw request body exactly as
 * received (a string or bytes: parse JSON only after verifying), `header` the `X-Wharf-Signature`
 * value, `secret` the project's signing secret. Throws `WebhookVerificationError` when the header
 * is missing or malformed, the signature does not match (forged, altered, wrong secret), or `t` is
 * more than 5 minutes away from now (a replay).
 */
export async function verifyWebhook(
  body: string | Uint8Array,
  header: string | string[] | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) throw new WebhookVerificationError('missing-header', 'the X-Wharf-Signature header is missing');
  let t: number | undefined;
  const signatures: Uint8Array[] = [];
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const val = part.slice(eq + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(val)) t = Number(val);
    else if (key === 'v1') {
      const bytes = fromHex(val);
      if (bytes) signatures.push(bytes);
    }
  }
  if (t === undefined || signatures.length === 0)
    throw new WebhookVerificationError(
      'malformed-header',
      'X-Wharf-Signature must be t=<unix seconds>,v1=<hex>',
    );
  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - t) > tolerance)
    throw new WebhookVerificationError(
      'stale',
      `the signature's time is ${nowSeconds - t} s away from now (more than ${tolerance} s)`,
    );
  const bodyBytes = typeof body === 'string' ? encoder.encode(body) : body;
  const signed = new Uint8Array(encoder.encode(`${t}.`).length + bodyBytes.length);
  const prefix = encoder.encode(`${t}.`);
  signed.set(prefix, 0);
  signed.set(bodyBytes, prefix.length);
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  let valid = false;
  // crypto.subtle.verify compares in constant time.
  for (const signature of signatures)
    if (
      await globalThis.crypto.subtle.verify(
        'HMAC',
        key,
        signature as Uint8Array<ArrayBuffer>,
        signed as Uint8Array<ArrayBuffer>,
      )
    )
      valid = true;
  if (!valid)
    throw new WebhookVerificationError('bad-signature', 'the signature does not match the body and secret');
  try {
    return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('malformed-body', 'the body is not JSON');
  }
}
