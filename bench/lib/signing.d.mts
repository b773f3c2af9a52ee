// Types of signing.mjs for the TypeScript tests (bench/test).
import type { Common } from '@ethereumjs/common';
export function devSigning(senders: number, chainId?: number): { common: Common; keys: Uint8Array[] };
export function signTransfer(
  tx: {
    chainId: bigint | number;
    nonce: bigint | number;
    maxPriorityFeePerGas: bigint | number;
    maxFeePerGas: bigint | number;
    gasLimit: bigint | number;
    to: Uint8Array;
    value: bigint | number;
  },
  key: Uint8Array,
): Uint8Array;
