/**
 * The transaction pool's interface. Consumers: rpc/ (eth_sendRawTransaction, txpool_*,
 * eth_getTransactionCount "pending", newPendingTransactions) and builder/ (best(), onIncluded()).
 * The pool knows nothing of storage or the EVM: it reads accounts through PoolStateReader.
 */
import type { Common } from '@ethereumjs/common';
import type { TypedTransaction } from '@ethereumjs/tx';
import type { SenderRecovery } from './recoveryThread.js';
import { ErrorCode } from '../primitives/errorCodes.js';

export type Hex = `0x${string}`;

/** A transaction accepted by the pool. */
export interface PoolTransaction {
  /** keccak256 of the signed transaction (a blob transaction's without its sidecar), 0x-lowercase. */
  hash: Hex;
  /** The signed transaction as submitted (a blob transaction: the network form, with its sidecar). */
  raw: Uint8Array;
  tx: TypedTransaction;
  /** Recovered sender, 0x-lowercase. */
  sender: Hex;
  nonce: bigint;
  /** Legacy/2930: gasPrice; 1559/7702: maxFeePerGas. */
  maxFeePerGas: bigint;
  /** Legacy/2930: gasPrice; 1559/7702: maxPriorityFeePerGas. */
  maxPriorityFeePerGas: bigint;
  /** Blob transactions (type 3) only. */
  maxFeePerBlobGas?: bigint;
  gasLimit: bigint;
  /**
   * The fields the builder's plain-transfer path reads, so that it executes a transfer without
   * building `tx` (decoded by the pool already). 0 legacy, 1 EIP-2930, 2 EIP-1559, 3 blob, 4 EIP-7702.
   */
  type: 0 | 1 | 2 | 3 | 4;
  /** Undefined for contract creation. */
  to: Uint8Array | undefined;
  value: bigint;
  data: Uint8Array;
  /** Entries of the access list (0 for legacy). */
  accessListAddresses: number;
  /** Milliseconds since the epoch when the pool accepted it. */
  receivedAt: number;
}

/**
 * The account state the pool validates against: the state after the last pre-confirmation
 * (pending), so that a transaction following a pre-confirmed one has the right nonce.
 */
export interface PoolStateReader {
  getNonce(address: Hex): Promise<bigint>;
  getBalance(address: Hex): Promise<bigint>;
  /** Optional: both in one read (the pool prefers it when present; one lookup per submission). */
  getAccount?(address: Hex): Promise<{ nonce: bigint; balance: bigint }>;
}

export interface TxPoolConfig {
  /**
   * Chain rules (fork, chain id) and customCrypto (native ecrecover) for decoding and recovery.
   * Blob transactions are accepted only when it activates EIP-4844 and carries a KZG
   * (`customCrypto.kzg`): the node gives one to chains imported from a geth genesis with Cancun,
   * never to its own dev chain (OP-style: no blobs).
   */
  common: Common;
  state: PoolStateReader;
  /** Base fee of the block being built. */
  baseFee(): bigint;
  /** Gas limit of the block being built. */
  blockGasLimit(): bigint;
  /**
   * Sender recovery off the event loop (the node gives the pool a RecoveryThread); without it
   * the pool recovers with `common.customCrypto.ecrecover` on the event loop.
   */
  recovery?: SenderRecovery;
  /**
   * Blob base fee of the block being built (blob chains). Without it a blob transaction's fee cap
   * is checked only against the EIP-4844 minimum, 1 wei (as geth's pool does).
   */
  blobBaseFee?(): bigint;
  /**
   * Dev nodes: senders that send without a key (anvil_impersonateAccount). Their transactions
   * carry s = 1 and r = the sender's address instead of a signature, and are taken as theirs
   * while this says yes. Absent: every transaction must be signed.
   */
  impersonated?: (address: Hex) => boolean;
  /** Minimum tip (geth --txpool.pricelimit, default 1 wei). */
  priceLimit?: bigint;
  /** Replacement bump in percent (default 10). */
  priceBump?: bigint;
  /** Fee cap in wei for gasLimit * maxFeePerGas (geth --rpc.txfeecap, default 1 ether; 0 = no cap). */
  txFeeCap?: bigint;
  /** geth defaults: accountSlots 16, globalSlots 5120, accountQueue 64, globalQueue 1024. */
  accountSlots?: number;
  globalSlots?: number;
  accountQueue?: number;
  globalQueue?: number;
  /** Accept transactions without EIP-155 replay protection (geth --rpc.allow-unprotected-txs). */
  allowUnprotected?: boolean;
  /** Queued (future) transactions older than this leave the pool (geth --txpool.lifetime, default 3 h; 0 = never). */
  lifetimeMs?: number;
  now?: () => number;
}

/** A refusal, with geth's exact message (code -32000 at the RPC edge). */
export class TxPoolError extends Error {
  override readonly name = 'TxPoolError';
  readonly code = ErrorCode.Server;
}

export interface TxPoolStatus {
  pending: number;
  queued: number;
}

export interface TxPool {
  /** Decodes, validates and adds a raw signed transaction; throws TxPoolError. Consumer: rpc. */
  add(raw: Uint8Array): Promise<PoolTransaction>;
  /**
   * Starts what `add(raw)` will need that the pool's state does not decide (decoding, the hash,
   * the sender's recovery on the worker thread), for an `add` of these same bytes (the same
   * object) later: a JSON-RPC batch's transactions are recovered back to back while the pool
   * takes them one by one, in order. Throws nothing and changes nothing a client sees: every
   * check and every refusal happens in `add`, as without it. Consumer: rpc.
   */
  prepare(raw: Uint8Array): void;
  /** A pooled transaction (pending or queued) by hash. Consumer: rpc. */
  get(hash: Hex): PoolTransaction | undefined;
  /**
   * Executable transactions, best first: by effective tip at `baseFee`, nonce order within a
   * sender. Consumer: builder (takes what fits, then reports with onIncluded / onRejected).
   * `from(sender)`: the lowest nonce wanted of that sender, when the caller already holds the
   * ones below (a builder's executed, not yet included transactions are not walked again).
   */
  best(baseFee: bigint, from?: (sender: Hex) => bigint | undefined): Iterable<PoolTransaction>;
  /** Transactions executed into a pre-confirmation or a sealed block leave the pool. Consumer: builder. */
  onIncluded(txs: readonly PoolTransaction[]): Promise<void>;
  /** A transaction that failed to execute (nonce or funds changed) leaves the pool. Consumer: builder. */
  onRejected(hash: Hex, reason: string): void;
  /** The next nonce of `address` counting its pending pool transactions. Consumer: rpc. */
  pendingNonce(address: Hex): Promise<bigint>;
  status(): TxPoolStatus;
  /** pending and queued by sender (0x-lowercase) then nonce. Consumer: rpc txpool_*. */
  content(): {
    pending: Map<Hex, Map<bigint, PoolTransaction>>;
    queued: Map<Hex, Map<bigint, PoolTransaction>>;
  };
  /** Called for every accepted transaction (newPendingTransactions). Returns an unsubscribe. */
  onAdded(listener: (tx: PoolTransaction) => void): () => void;
}
