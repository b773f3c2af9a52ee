/**
 * geth's --rpc.txfeecap: gasLimit * maxFeePerGas (legacy: gasPrice) must not exceed the cap.
 * The message prints both sides in ether with two decimals, as Go's `%.2f` does.
 */
import { poolErrorText } from './errors.js';
import type { TxPoolError } from './types.js';

const WEI_PER_ETHER = 10n ** 18n;

/**
 * A TxPoolError when gasLimit * maxFeePerGas exceeds `cap` (0 = no cap), else undefined.
 * The comparison is exact in wei (geth compares float64 ether values, which lets a fee a few
 * wei over the cap through).
 */
export function checkTxFee(maxFeePerGas: bigint, gasLimit: bigint, cap: bigint): TxPoolError | undefined {
  if (cap === 0n) return undefined;
  const fee = maxFeePerGas * gasLimit;
  if (fee <= cap) return undefined;
  return poolErrorText('txFeeCap', formatEther2(fee), formatEther2(cap));
}

/** wei as ether, like Go's fmt `%.2f` of the float64 quotient (round half to even on exact ties). */
export function formatEther2(wei: bigint): string {
  const x = Number(wei) / Number(WEI_PER_ETHER);
  if (x >= 1e21) return `${BigInt(Math.round(x)).toString()}.00`;
  // A float64 lies exactly halfway between two cents only when its fraction is k/8 with k odd.
  if (Number.isInteger(x * 8) && !Number.isInteger(x * 4)) {
    const down = Math.floor(x * 100);
    const cents = down % 2 === 0 ? down : down + 1;
    return (cents / 100).toFixed(2);
  }
  return x.toFixed(2);
}
