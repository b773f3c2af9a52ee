/**
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
