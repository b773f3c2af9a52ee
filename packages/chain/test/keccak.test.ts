import { keccak_256 } from '@noble/hashes/sha3.js';
import { describe, expect, it } from 'vitest';
import {
  initKeccak,
  isKeccakReady,
  KeccakNotInitializedError,
  keccak256,
  keccak256Hex,
} from '../src/crypto/keccak.js';

function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 131 + seed * 17 + ((i * seed) >> 3)) & 0xff;
  return out;
}

describe('keccak256', () => {
  it('throws a clear error before initKeccak()', () => {
    expect(isKeccakReady()).toBe(false);
    expect(() => keccak256(new Uint8Array(1))).toThrow(KeccakNotInitializedError);
    expect(() => keccak256(new Uint8Array(1))).toThrow(/initKeccak/);
  });

  it('matches @noble/hashes for lengths 0..600 with one reused hasher', async () => {
    await Promise.all([initKeccak(), initKeccak()]);
    expect(isKeccakReady()).toBe(true);
    for (let n = 0; n <= 600; n += n < 140 ? 1 : 37) {
      const data = bytes(n, n);
      expect(keccak256(data)).toEqual(keccak_256(data));
    }
  });

  it('returns a fresh array each call and hashes subarray views correctly', async () => {
    await initKeccak();
    const buf = bytes(100, 3);
    const a = keccak256(buf.subarray(10, 50));
    const b = keccak256(buf.subarray(10, 50));
    expect(a).not.toBe(b);
    expect(a).toEqual(keccak_256(buf.slice(10, 50)));
  });

  it('keccak256Hex gives 0x-prefixed lowercase hex', async () => {
    await initKeccak();
    expect(keccak256Hex(new Uint8Array(0))).toBe(
      '0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470',
    );
  });
});
