/** A chain's EIP-1559 parameters (geth's 8 and 2; a wharf dev chain's OP-style 250 and 6). */
export interface BaseFeeParams {
  denominator: bigint;
  elasticity: bigint;
}

/** EIP-1559 base fee of the next block (our chain uses OP Canyon's denominator 250, elasticity 6). */
export function nextBaseFee(
  parent: { baseFeePerGas?: bigint; gasUsed: bigint; gasLimit: bigint },
  params: BaseFeeParams,
): bigint {
  const base = parent.baseFeePerGas ?? 1_000_000_000n;
  const target = parent.gasLimit / params.elasticity;
  if (target === 0n || parent.gasUsed === target) return base;
  if (parent.gasUsed > target) {
    const delta = (base * (parent.gasUsed - target)) / target / params.denominator;
    return base + (delta > 1n ? delta : 1n);
  }
  return base - (base * (target - parent.gasUsed)) / target / params.denominator;
}
