/**
 * bench/lib/signing.mjs's own transfer signing (the hour run signs 3.6 million transfers up front)
 * gives the bytes @ethereumjs/tx gives for the same transfer and key.
 */
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { devSigning, signTransfer } from '../lib/signing.mjs';

describe('signTransfer', () => {
  it('serializes and signs EIP-1559 transfers exactly as @ethereumjs/tx does', () => {
    const { common, keys } = devSigning(3);
    const cases = [
      { nonce: 0, to: 0x1000, value: 1n },
      { nonce: 127, to: 0x1001, value: 0n },
      { nonce: 128, to: 0xffff_ffff, value: 128n },
      { nonce: 65_536, to: 0x1000 + 3_599_999, value: 10n ** 18n },
    ];
    // Enough signatures that some r or s starts with a zero byte (1 in 128 each).
    for (let i = 0; i < 600; i++) cases.push({ nonce: i * 7, to: 0x2000 + i, value: BigInt(i) });
    for (const [k, c] of cases.entries()) {
      const tx = {
        chainId: 31337n,
        nonce: BigInt(c.nonce),
        maxPriorityFeePerGas: 1n,
        maxFeePerGas: 100_000_000_000n,
        gasLimit: 21000n,
        value: c.value,
      };
      const to: `0x${string}` = `0x${c.to.toString(16).padStart(40, '0')}`;
      const key = keys[k % keys.length];
      const expected = createFeeMarket1559Tx({ ...tx, to }, { common })
        .sign(key)
        .serialize();
      const got = signTransfer({ ...tx, to: Buffer.from(to.slice(2), 'hex') }, key);
      expect(Buffer.from(got).toString('hex'), `case ${k}`).toBe(Buffer.from(expected).toString('hex'));
    }
  });
});
