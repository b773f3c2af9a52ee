/**
 * The `X-Wharf-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
 * Signed at each attempt with that attempt's time, so a receiver can refuse stale replays. During
 * the grace period after a rotation the header carries one `v1=` per live secret (new first): a
 * receiver that still holds the old secret keeps verifying. `@wharf/sdk`'s `verifyWebhook` checks it.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const signatureHeader = 'x-wharf-signature';

/** A new signing secret: `whsec_` + 32 random bytes (base64url). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export function signatureOf(secret: string, unixSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
}

/** The header value for `body` signed at `unixSeconds` with every secret given (new first). */
export function signWebhook(secrets: readonly string[], unixSeconds: number, body: string): string {
  return [`t=${unixSeconds}`, ...secrets.map((s) => `v1=${signatureOf(s, unixSeconds, body)}`)].join(',');
}
