/**
 * Every refusal the pool can produce, with geth's exact text before the colon and geth's detail
 * after it. Each becomes JSON-RPC code -32000 at the RPC edge (TxPoolError.code).
 * The list, with conditions, is in README.md. A few messages carry their numbers inside geth's
 * text (`invalid number of 2 blobs compared to 1 blob hashes`, the fee cap's): `TxPoolErrorText`
 * builds those whole. No TxPoolError is made anywhere else.
 */
import { TxPoolError } from './types.js';

/** geth's error texts (the part before any colon). */
export const TxPoolErrorMessage = {
  nonceTooLow: 'nonce too low',
  alreadyKnown: 'already known',
  replaceUnderpriced: 'replacement transaction underpriced',
  insufficientFunds: 'insufficient funds for gas * price + value',
  intrinsicGas: 'intrinsic gas too low',
  floorDataGas: 'insufficient gas for floor data gas cost',
  gasLimit: 'exceeds block gas limit',
  feeCapTooLow: 'max fee per gas less than block base fee',
  tipAboveFeeCap: 'max priority fee per gas higher than max fee per gas',
  underpriced: 'transaction underpriced',
  oversizedData: 'oversized data',
  maxInitCodeSize: 'max initcode size exceeded',
  invalidSender: 'invalid sender',
  invalidChainId: 'invalid chain id for signer',
  unprotected: 'only replay-protected (EIP-155) transactions allowed over RPC',
  typeNotSupported: 'transaction type not supported',
  poolFull: 'txpool is full',
  futureReplacePending: 'future transaction tries to replace pending',
  accountLimit: 'account limit exceeded',
  emptyAuthList: 'set code tx must have at least one authorization tuple',
  nonceMax: 'nonce has max value',
  rlp: 'rlp',
  shortTypedTx: 'typed transaction too short',
  missingSidecar: 'missing sidecar in blob transaction',
  blobless: 'blobless blob transaction',
  blobFeeCapTooLow: 'max fee per blob gas less than block blob gas fee',
  kzg: 'KZG verification error',
  alreadyReserved: 'address already reserved',
} as const;

export type TxPoolErrorKind = keyof typeof TxPoolErrorMessage;

/** A TxPoolError whose message is `<geth text>` or `<geth text>: <detail>`. */
export function poolError(kind: TxPoolErrorKind, detail?: string): TxPoolError {
  const text = TxPoolErrorMessage[kind];
  return new TxPoolError(detail === undefined ? text : `${text}: ${detail}`);
}

/** geth's messages that carry their numbers inside the text (blob checks, the fee cap). */
export const TxPoolErrorText = {
  blobTxVersion: (version: number) => `unsupported blob tx version ${version}`,
  sidecarVersion: (want: number, got: number) => `unexpected sidecar version, want: ${want}, got: ${got}`,
  tooManyBlobs: (have: number, permitted: number) =>
    `too many blobs in transaction: have ${have}, permitted ${permitted}`,
  blobCount: (blobs: number, hashes: number) =>
    `invalid number of ${blobs} blobs compared to ${hashes} blob hashes`,
  commitmentCount: (commitments: number, hashes: number) =>
    `invalid number of ${commitments} blob commitments compared to ${hashes} blob hashes`,
  blobHashMismatch: (blob: number, computed: string, inTx: string) =>
    `blob ${blob}: computed hash ${computed} mismatches transaction one ${inTx}`,
  proofCount: (proofs: number, want: number) => `invalid number of ${proofs} blob proofs expected ${want}`,
  /** geth's --rpc.txfeecap; both sides in ether with two decimals (feeCap.ts). */
  txFeeCap: (fee: string, cap: string) => `tx fee (${fee} ether) exceeds the configured cap (${cap} ether)`,
} as const;

type TextKind = keyof typeof TxPoolErrorText;

/** A TxPoolError whose message is one of `TxPoolErrorText`, with its numbers. */
export function poolErrorText<K extends TextKind>(
  kind: K,
  ...args: Parameters<(typeof TxPoolErrorText)[K]>
): TxPoolError {
  const text = TxPoolErrorText[kind] as (...a: Parameters<(typeof TxPoolErrorText)[K]>) => string;
  return new TxPoolError(text(...args));
}
