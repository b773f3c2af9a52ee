/**
 * Prices of pooled transactions: geth's replacement rule, and which of two pays more (eviction,
 * ordering).
 *
 * geth's replacement rule: a transaction with the same sender and nonce replaces the pooled one
 * only when it raises both the fee cap and the tip, each to at least old * (100 + bump) / 100
 * (integer division), and strictly above the old value (so that 1-wei prices still move).
 * Legacy and EIP-2930 transactions use the gas price for both. A blob transaction replacing a
 * blob transaction must raise its blob fee cap the same way (geth's blob pool asks it of all
 * three, with a 100% bump).
 */
export interface Prices {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** Blob transactions only. */
  maxFeePerBlobGas?: bigint;
}

export function isReplacementPriced(old: Prices, next: Prices, priceBump: bigint): boolean {
  const bumped = (before: bigint, after: bigint): boolean =>
    after > before && after >= (before * (100n + priceBump)) / 100n;
  if (!bumped(old.maxFeePerGas, next.maxFeePerGas)) return false;
  if (!bumped(old.maxPriorityFeePerGas, next.maxPriorityFeePerGas)) return false;
  if (old.maxFeePerBlobGas === undefined || next.maxFeePerBlobGas === undefined) return true;
  return bumped(old.maxFeePerBlobGas, next.maxFeePerBlobGas);
}

/** What a transaction pays the block's producer per gas at `baseFee`. */
export function effectiveTip(p: Prices, baseFee: bigint): bigint {
  const headroom = p.maxFeePerGas - baseFee;
  return p.maxPriorityFeePerGas < headroom ? p.maxPriorityFeePerGas : headroom;
}

/** -1 when `a` pays less than `b` at `baseFee` (effective tip, then fee cap, then tip). */
export function comparePrice(a: Prices, b: Prices, baseFee: bigint): number {
  const ta = effectiveTip(a, baseFee);
  const tb = effectiveTip(b, baseFee);
  if (ta !== tb) return ta < tb ? -1 : 1;
  if (a.maxFeePerGas !== b.maxFeePerGas) return a.maxFeePerGas < b.maxFeePerGas ? -1 : 1;
  if (a.maxPriorityFeePerGas !== b.maxPriorityFeePerGas) {
    return a.maxPriorityFeePerGas < b.maxPriorityFeePerGas ? -1 : 1;
  }
  return 0;
}
