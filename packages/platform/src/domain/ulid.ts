/**
 * ULIDs (https://github.com/ulid/spec): 48-bit millisecond time + 80 random bits, Crockford
 * base32, 26 characters. Monotonic per generator: within one millisecond (or if the clock steps
 * back) the random part is incremented, so ids sort in creation order — the inbox and the SSE
 * stream's Last-Event-ID rely on it. The `ulid` package draws one random byte per call of
 * getRandomValues (16 per id, ~0.2-0.8 ms per id here); this draws 10 bytes per millisecond.
 */
import { randomFillSync } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const twoTo40 = 2 ** 40;

function encode(value: number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = alphabet[value % 32]! + out;
    value = Math.floor(value / 32);
  }
  return out;
}

export function createUlidGenerator(clock: () => number = Date.now): () => string {
  const bytes = new Uint8Array(10);
  let lastTime = -1;
  let hi = 0; // upper 40 random bits
  let lo = 0; // lower 40 random bits
  return () => {
    const now = clock();
    if (now > lastTime) {
      lastTime = now;
      randomFillSync(bytes);
      // Top bit of the random part cleared: room to increment within a millisecond.
      hi =
        (bytes[0]! & 0x7f) * 2 ** 32 +
        ((bytes[1]! << 24) >>> 0) +
        (bytes[2]! << 16) +
        (bytes[3]! << 8) +
        bytes[4]!;
      lo = bytes[5]! * 2 ** 32 + ((bytes[6]! << 24) >>> 0) + (bytes[7]! << 16) + (bytes[8]! << 8) + bytes[9]!;
    } else {
      lo++;
      if (lo === twoTo40) {
        lo = 0;
        hi++;
      }
    }
    return encode(lastTime, 10) + encode(hi, 8) + encode(lo, 8);
  };
}
