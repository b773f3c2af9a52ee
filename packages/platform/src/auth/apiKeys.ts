/**
 * API keys: `wharf_` + 32 random bytes (base64url). Only the SHA-256 is stored; lookups go by hash
 * and the found hash is compared again in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateApiKey(): string {
  return `wharf_${randomBytes(32).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests (or any two strings). */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
