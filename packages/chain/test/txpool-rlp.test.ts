/**
 * The pool's RLP decoding (txpool/rlpViews.ts) against @ethereumjs/rlp: the same items or the
 * same error message for valid encodings and for damaged ones (cut short, bytes changed, random),
 * and views into the input instead of copies. Then the signing payload cut from the submitted
 * bytes: every kind and size of transaction recovers its signer.
 */
import { RLP } from '@ethereumjs/rlp';
import { hexToBytes, toHex } from 'viem';
import { describe, expect, test } from 'vitest';
import { createTxPool } from '../src/txpool/index.js';
import { decodeRlpViews, type RlpItem } from '../src/txpool/rlpViews.js';
import { rng } from './rng.js';
import { CHAIN_ID, common, ETHER, eip1559, FakeState, GWEI, signer } from './txpool-helpers.js';

type Shape = string | Shape[];
const shape = (x: unknown): Shape =>
  Array.isArray(x) ? x.map(shape) : Buffer.from(x as Uint8Array).toString('hex');

function outcome(decode: (b: Uint8Array) => unknown, input: Uint8Array): { ok: Shape } | { error: string } {
  try {
    return { ok: shape(decode(input)) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** A random item: byte strings of every length class (0, 1 byte < 0x80, short, long) and lists. */
function randomItem(r: () => number, depth = 0): RlpItem {
  if (depth < 3 && r() < 0.4)
    return Array.from({ length: Math.floor(r() * 6) }, () => randomItem(r, depth + 1));
  const sizes = [0, 1, 1, 2, 20, 32, 55, 56, 200, 300];
  const n = sizes[Math.floor(r() * sizes.length)];
  return Uint8Array.from({ length: n }, () => Math.floor(r() * 256));
}

describe('decodeRlpViews', () => {
  test('the library’s items for valid encodings, and views into the input', () => {
    const r = rng(340);
    for (let i = 0; i < 2000; i++) {
      const encoded = RLP.encode(randomItem(r) as never);
      expect(outcome(decodeRlpViews, encoded), toHex(encoded)).toEqual(outcome(RLP.decode, encoded));
    }
    const input = RLP.encode([Uint8Array.of(1, 2, 3), [Uint8Array.of(0x90)]]);
    const [a] = decodeRlpViews(input) as Uint8Array[];
    expect(a.buffer).toBe(input.buffer);
  });

  test('the library’s error message for damaged encodings', () => {
    const r = rng(341);
    let errors = 0;
    for (let i = 0; i < 4000; i++) {
      const encoded = RLP.encode(randomItem(r) as never);
      let damaged: Uint8Array;
      const kind = i % 4;
      if (kind === 0) damaged = encoded.subarray(0, Math.floor(r() * encoded.length));
      else if (kind === 1) {
        damaged = Uint8Array.from(encoded);
        damaged[Math.floor(r() * damaged.length)] = Math.floor(r() * 256);
      } else if (kind === 2) damaged = Uint8Array.from([...encoded, Math.floor(r() * 256)]);
      else damaged = Uint8Array.from({ length: 1 + Math.floor(r() * 80) }, () => Math.floor(r() * 256));
      const want = outcome(RLP.decode, damaged);
      if ('error' in want) errors++;
      expect(outcome(decodeRlpViews, damaged), toHex(damaged)).toEqual(want);
    }
    expect(errors).toBeGreaterThan(1000);
    // Each of the library's messages, on purpose.
    for (const hex of [
      '0x81',
      '0x8105',
      '0xb801',
      '0xb83700',
      '0xb900ff',
      '0xc3',
      '0xf800',
      '0xf838',
      '0xf90100',
      '0x0000',
    ]) {
      expect(outcome(decodeRlpViews, hexToBytes(hex as `0x${string}`)), hex).toEqual(
        outcome(RLP.decode, hexToBytes(hex as `0x${string}`)),
      );
    }
  });
});

describe('the signing payload cut from the submitted bytes', () => {
  test('every kind and size of transaction recovers its signer', async () => {
    const pool = createTxPool({
      common,
      state: new FakeState(1000n * ETHER),
      baseFee: () => 1n,
      blockGasLimit: () => 30_000_000n,
      allowUnprotected: true,
    });
    const alice = signer(3);
    const legacy = (nonce: number, chainId: number | undefined, data?: `0x${string}`) =>
      alice.signTransaction({
        type: 'legacy',
        chainId,
        nonce,
        gas: 2_000_000n,
        gasPrice: 10n * GWEI,
        to: '0x00000000000000000000000000000000000000aa',
        data,
      });
    const raws: Uint8Array[] = [
      hexToBytes(await legacy(0, CHAIN_ID)),
      hexToBytes(await legacy(1, undefined)),
      hexToBytes(await legacy(2, CHAIN_ID, `0x${'ab'.repeat(300)}`)),
      await eip1559(alice, { nonce: 3 }),
      await eip1559(alice, { nonce: 4, gas: 3_000_000n, data: `0x${'cd'.repeat(70_000)}` }),
      hexToBytes(
        await alice.signTransaction({
          type: 'eip2930',
          chainId: CHAIN_ID,
          nonce: 5,
          gas: 100_000n,
          gasPrice: 10n * GWEI,
          to: '0x00000000000000000000000000000000000000aa',
          accessList: [
            { address: '0x00000000000000000000000000000000000000bb', storageKeys: [toHex(1, { size: 32 })] },
          ],
        }),
      ),
    ];
    for (const raw of raws) expect((await pool.add(raw)).sender).toBe(alice.address.toLowerCase());
    expect(pool.status()).toEqual({ pending: raws.length, queued: 0 });
  });
});
