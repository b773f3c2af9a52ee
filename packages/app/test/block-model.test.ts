import { describe, expect, it } from 'vitest';
import { applySnapshot, SLOTS, snapshotOf } from '../src/chain/blockModel.js';
import { formatEther, parseEther } from '../src/text/ether.js';

const snap = (parentHash: string, txCount: number, gasUsed: bigint, index?: number) => ({
  parentHash,
  txCount,
  gasUsed,
  gasLimit: 30_000_000n,
  index,
});

describe('applySnapshot', () => {
  it("puts each flashblock's new transactions and gas in its slot", () => {
    let b = applySnapshot(undefined, snap('0xa', 0, 0n, 0), 0);
    b = applySnapshot(b, snap('0xa', 2, 42_000n, 1), 200);
    b = applySnapshot(b, snap('0xa', 5, 105_000n, 2), 400);
    expect(b.slots.map((s) => s.txs).slice(0, 3)).toEqual([2, 3, 0]);
    expect(b.slots[1].gas).toBe(63_000n);
    expect(b.txCount).toBe(5);
    expect(b.slots).toHaveLength(SLOTS);
  });

  it('derives the slot from time when the source gives no index (polling)', () => {
    let b = applySnapshot(undefined, snap('0xa', 0, 0n), 1000);
    b = applySnapshot(b, snap('0xa', 1, 21_000n), 1000 + 650);
    expect(b.current).toBe(3);
    expect(b.slots[3].txs).toBe(1);
    expect(b.slots.map((x) => x.seen)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('starts a new block when the parent changes, and never runs past the last slot', () => {
    let b = applySnapshot(undefined, snap('0xa', 3, 63_000n), 0);
    b = applySnapshot(b, snap('0xa', 4, 84_000n), 5000);
    expect(b.current).toBe(SLOTS - 1);
    b = applySnapshot(b, snap('0xb', 0, 0n), 5100);
    expect(b.parentHash).toBe('0xb');
    expect(b.txCount).toBe(0);
    expect(b.slots.every((s) => s.txs === 0)).toBe(true);
  });

  it('reads a JSON-RPC pending block', () => {
    expect(
      snapshotOf({
        number: null,
        parentHash: '0xp',
        transactions: ['0x1', '0x2'],
        gasUsed: '0xa410',
        gasLimit: '0x1c9c380',
      }),
    ).toEqual({
      parentHash: '0xp',
      number: undefined,
      txCount: 2,
      gasUsed: 42_000n,
      gasLimit: 30_000_000n,
      index: undefined,
    });
    expect(snapshotOf(null)).toBeUndefined();
  });
});

describe('ether text', () => {
  it('formats and parses exactly', () => {
    expect(formatEther(10_000n * 10n ** 18n)).toBe('10,000');
    expect(formatEther(1_500_000_000_000_000n)).toBe('0.0015');
    expect(parseEther('1.5')).toBe(1_500_000_000_000_000_000n);
    expect(parseEther('.5')).toBe(500_000_000_000_000_000n);
    expect(parseEther('abc')).toBeUndefined();
    expect(parseEther('')).toBeUndefined();
    expect(parseEther('1.0000000000000000001')).toBeUndefined();
  });
});
