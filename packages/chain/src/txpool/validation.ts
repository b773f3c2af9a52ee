/**
 * Validation in geth's order (core/txpool/validation.go, legacypool.add, ethapi.SubmitTransaction).
 *
 *   submission   tx fee cap -> EIP-155 replay protection                         (validateSubmission)
 *   stateless    size -> initcode size -> block gas limit -> tip <= fee cap -> 7702 authorizations
 *                -> sender / chain id -> nonce < 2^64-1 -> intrinsic gas -> floor data gas
 *                -> minimum tip -> base fee -> blob transactions: sidecar, blob fee, KZG proofs
 *                   (blobs.ts)                                                     (validateStateless)
 *   with state   nonce too low -> funds for this tx -> funds with the pending ones (validateWithState)
 */
import { BLOB_TX_MAX_SIZE, type BlobRules, blobGas, validateBlobTransaction } from './blobs.js';
import { type DecodedTransaction, type RecoveryCrypto, recoverSender } from './decode.js';
import { poolError } from './errors.js';
import { checkTxFee } from './feeCap.js';
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE } from './intrinsicGas.js';
import type { Hex } from './types.js';

/** geth's txMaxSize: 4 slots of 32 KiB. */
export const TX_MAX_SIZE = 4 * 32 * 1024;
/** EIP-2681: a nonce must stay below 2^64 - 1 so that it can be incremented. */
const MAX_NONCE = 2n ** 64n - 1n;
/** geth's txSlotSize: pool capacity is counted in 32 KiB slots. */
export const TX_SLOT_SIZE = 32 * 1024;

/** The RPC-level checks geth makes before the pool (fee cap, then replay protection). */
export function validateSubmission(
  decoded: DecodedTransaction,
  txFeeCap: bigint,
  allowUnprotected: boolean,
): void {
  const feeError = checkTxFee(decoded.maxFeePerGas, decoded.gasLimit, txFeeCap);
  if (feeError) throw feeError;
  if (!allowUnprotected && decoded.type === 0 && decoded.chainId === undefined)
    throw poolError('unprotected');
}

export interface StatelessRules {
  chainId: bigint;
  crypto: RecoveryCrypto;
  /** EIP-7623 (Prague) is active: the calldata floor applies. */
  floorDataGas: boolean;
  blockGasLimit: bigint;
  baseFee: bigint;
  minTip: bigint;
  /** The chain's blob rules (only a chain that takes blobs decodes a blob transaction). */
  blobs?: BlobRules;
  /** Blob base fee of the block being built; undefined checks only the EIP-4844 minimum. */
  blobBaseFee?: bigint;
}

/**
 * Consensus and pool checks that need no account state; recovers the sender (0x-lowercase).
 * `started`: its public key's recovery, begun earlier (see recoverSender).
 */
export async function validateStateless(
  decoded: DecodedTransaction,
  rules: StatelessRules,
  started?: Promise<Uint8Array>,
): Promise<Hex> {
  const size = decoded.raw.length;
  const maxSize = decoded.type === 3 ? BLOB_TX_MAX_SIZE : TX_MAX_SIZE;
  if (size > maxSize) {
    throw poolError('oversizedData', `transaction size ${size}, limit ${maxSize}`);
  }
  if (decoded.to === undefined && decoded.data.length > MAX_INITCODE_SIZE) {
    throw poolError('maxInitCodeSize', `code size ${decoded.data.length}, limit ${MAX_INITCODE_SIZE}`);
  }
  if (decoded.gasLimit > rules.blockGasLimit) throw poolError('gasLimit');
  if (decoded.maxFeePerGas < decoded.maxPriorityFeePerGas) {
    throw poolError(
      'tipAboveFeeCap',
      `maxPriorityFeePerGas: ${decoded.maxPriorityFeePerGas}, maxFeePerGas: ${decoded.maxFeePerGas}`,
    );
  }
  if (decoded.type === 4 && decoded.authorizations === 0) throw poolError('emptyAuthList');
  const sender = await recoverSender(decoded, rules.chainId, rules.crypto, started);
  if (decoded.nonce === MAX_NONCE) throw poolError('nonceMax', `address ${sender}, nonce: ${decoded.nonce}`);
  const intrinsic = intrinsicGas({
    data: decoded.data,
    isCreate: decoded.to === undefined,
    accessListAddresses: decoded.accessListAddresses,
    accessListStorageKeys: decoded.accessListStorageKeys,
    authorizations: decoded.authorizations,
  });
  if (decoded.gasLimit < intrinsic) {
    throw poolError('intrinsicGas', `gas ${decoded.gasLimit}, minimum needed ${intrinsic}`);
  }
  if (rules.floorDataGas) {
    const floor = floorDataGas(decoded.data);
    if (decoded.gasLimit < floor) {
      throw poolError('floorDataGas', `gas ${decoded.gasLimit}, minimum needed ${floor}`);
    }
  }
  if (decoded.maxPriorityFeePerGas < rules.minTip) {
    throw poolError(
      'underpriced',
      `gas tip cap ${decoded.maxPriorityFeePerGas}, minimum needed ${rules.minTip}`,
    );
  }
  if (decoded.maxFeePerGas < rules.baseFee) {
    throw poolError(
      'feeCapTooLow',
      `address ${sender}, maxFeePerGas: ${decoded.maxFeePerGas}, baseFee: ${rules.baseFee}`,
    );
  }
  if (decoded.blob !== undefined) {
    // decodeRawTransaction refuses type 3 unless the chain takes blobs, so the rules are here.
    if (rules.blobs === undefined)
      throw poolError('typeNotSupported', 'tx type 3 not supported by this pool');
    validateBlobTransaction(decoded.blob, { rules: rules.blobs, blobBaseFee: rules.blobBaseFee, sender });
  }
  return sender;
}

/**
 * gasLimit * maxFeePerGas + value, plus blob gas * maxFeePerBlobGas for a blob transaction: what
 * the sender must hold (geth's tx.Cost()).
 */
export function transactionCost(decoded: DecodedTransaction): bigint {
  const cost = decoded.gasLimit * decoded.maxFeePerGas + decoded.value;
  if (decoded.blob === undefined) return cost;
  return cost + blobGas(decoded.blob) * decoded.blob.maxFeePerBlobGas;
}

export interface AccountView {
  /** The next nonce the pool expects from the state (the larger of the state's and the pool's). */
  nextNonce: bigint;
  balance: bigint;
  /** Total cost of the sender's pending transactions (geth's ExistingExpenditure). */
  pendingCost: bigint;
  /** Cost of the pending transaction this one would replace (geth's ExistingCost). */
  replacedCost: bigint | undefined;
}

/** geth's ValidateTransactionWithState: nonce, then funds for the tx, then funds with the pending ones. */
export function validateWithState(decoded: DecodedTransaction, cost: bigint, account: AccountView): void {
  if (decoded.nonce < account.nextNonce) {
    throw poolError('nonceTooLow', `next nonce ${account.nextNonce}, tx nonce ${decoded.nonce}`);
  }
  const { balance, pendingCost } = account;
  if (balance < cost) {
    throw poolError('insufficientFunds', `balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`);
  }
  if (account.replacedCost !== undefined) {
    const bump = cost - account.replacedCost;
    const need = pendingCost + bump;
    if (balance < need) {
      throw poolError(
        'insufficientFunds',
        `balance ${balance}, queued cost ${pendingCost}, tx bumped ${bump}, overshot ${need - balance}`,
      );
    }
  } else {
    const need = pendingCost + cost;
    if (balance < need) {
      throw poolError(
        'insufficientFunds',
        `balance ${balance}, queued cost ${pendingCost}, tx cost ${cost}, overshot ${need - balance}`,
      );
    }
  }
}
