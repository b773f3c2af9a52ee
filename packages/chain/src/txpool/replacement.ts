/**
 * geth's replacement rule: a transaction with the same sender and nonce replaces the pooled one
 * only when it raises both the fee cap and the tip, each to at least old * (100 + bump) / 100
 * (integer division), and strictly above the old value (so that 1-wei prices still move).
 * Legacy and EIP-2930 transactions use the gas price for both.
 */
export interface Prices {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export function isReplacementPriced(old: Prices, next: Prices, priceBump: bigint): boolean {
  if (next.maxFeePerGas <= old.maxFeePerGas || next.maxPriorityFeePerGas <= old.maxPriorityFeePerGas) {
    return false;
  }
  const factor = 100n + priceBump;
  const feeThreshold = (old.maxFeePerGas * factor) / 100n;
  const tipThreshold = (old.maxPriorityFeePerGas * factor) / 100n;
  return next.maxFeePerGas >= feeThreshold && next.maxPriorityFeePerGas >= tipThreshold;
}
