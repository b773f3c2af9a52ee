/** EIP-1559 base fee of the next block (our chain uses OP Canyon's denominator 250, elasticity 6). */
export function nextBaseFee(
  parent: { baseFeePerGas?: bigint; gasUsed: bigint; gasLimit: bigint },
  params: { denominator: bigint; elasticity: bigint },
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
