/**
 * What the test methods (anvil_*, hardhat_*, evm_*) ask of the node: the builder's side of them,
 * as one interface. Consumer: rpc/anvil.ts, rpc/evm.ts, rpc/hardhat.ts (through RpcContext.dev).
 * Implemented by builder/devControls.ts. Quantities are bigint, addresses 0x-lowercase hex.
 *
 * How a state change reaches readers (docs/decisions/0140-dev-methods-and-flashblocks.md): it is
 * applied to the block being built and shows at `pending` from the next flashblock. With
 * automine on (Anvil's default, a block per transaction), the change is sealed in a block of its
 * own at once, so `latest` shows it when the call returns.
 */
import type { ForkTarget } from '../execution/forkReset.js';
import type { AnvilState } from '../state/anvilStateFile.js';

export type Hex = `0x${string}`;

export interface MineOptions {
  /** How many blocks (default 1). */
  blocks?: bigint;
  /** Seconds between their timestamps (anvil_mine's second parameter); 0: as the clock says. */
  interval?: bigint;
  /** The first block's timestamp (evm_mine's parameter). */
  timestamp?: bigint;
}

export interface MiningMode {
  /** A block per transaction (Anvil's and Hardhat's default). */
  automine: boolean;
  /** Seconds between sealed blocks when automine is off; 0 with automine off: manual (evm_mine only). */
  blockTime: number;
}

export interface NodeInfo {
  currentBlockNumber: bigint;
  currentBlockTimestamp: bigint;
  currentBlockHash: Hex;
  chainId: bigint;
  hardFork: string;
  transactionOrder: string;
  environment: { baseFee: bigint; chainId: bigint; gasLimit: bigint; gasPrice: bigint };
  forkConfig: { forkUrl?: string; forkBlockNumber?: bigint };
}

export interface DevApi {
  /** Seals the block being built at once (then `blocks - 1` empty ones); resolves when sealed. */
  mine(o?: MineOptions): Promise<void>;
  mining(): MiningMode;
  setAutomine(on: boolean): Promise<void>;
  /** Seconds; 0 turns interval mining off. */
  setIntervalMining(seconds: number): Promise<void>;
  /** Moves the clock of future blocks forward; returns the total offset in seconds. */
  increaseTime(seconds: bigint): bigint;
  /** The next block's timestamp exactly (later blocks continue from it). */
  setNextBlockTimestamp(timestamp: bigint): Promise<void>;
  /** Each block not given a timestamp `seconds` after its parent (Anvil's, in seconds). */
  setBlockTimestampInterval(seconds: bigint): Promise<void>;
  /** Back to the clock; false if no interval was set. */
  removeBlockTimestampInterval(): Promise<boolean>;
  /** The block gas limit from the next block on. */
  setBlockGasLimit(gasLimit: bigint): Promise<void>;
  setNextBlockBaseFeePerGas(baseFee: bigint): Promise<void>;
  setCoinbase(address: Uint8Array): Promise<void>;

  setBalance(address: Uint8Array, balance: bigint): Promise<void>;
  setCode(address: Uint8Array, code: Uint8Array): Promise<void>;
  setStorageAt(address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void>;
  setNonce(address: Uint8Array, nonce: bigint): Promise<void>;

  impersonate(address: Uint8Array): void;
  stopImpersonating(address: Uint8Array): void;
  setAutoImpersonate(on: boolean): void;
  /** Whether `address` may send with eth_sendTransaction without a key. */
  impersonating(address: Uint8Array): boolean;
  /** Submits an unsigned transaction from an impersonated sender; returns its hash. */
  sendUnsigned(tx: UnsignedTx): Promise<Hex>;

  /** Removes a pooled transaction (pending or queued); false if the pool does not hold it. */
  dropTransaction(hash: Hex): boolean;
  /** Empties the pool. */
  dropAllTransactions(): void;

  /** Remembers the sealed head and the pool; returns the snapshot's id. */
  snapshot(): Promise<bigint>;
  /** Back to a snapshot (and forgets it and every later one); false for an unknown id. */
  revert(id: bigint): Promise<boolean>;

  /** Back to genesis (fork: to the fork point, or to a new fork). */
  reset(fork?: ForkTarget): Promise<void>;

  /** A fork's remote at another URL (the same chain: its fork block must have the same hash). */
  setRpcUrl(url: string): Promise<void>;

  dumpState(): Promise<AnvilState>;
  /** Sets every account of `state` in the block being built (merging with what is there). */
  loadState(state: AnvilState): Promise<void>;

  nodeInfo(): Promise<NodeInfo>;
  setLoggingEnabled(on: boolean): void;
}

/** An unsigned transaction request, already parsed (eth_sendTransaction from an impersonated sender). */
export interface UnsignedTx {
  from: Uint8Array;
  to?: Uint8Array;
  value?: bigint;
  data?: Uint8Array;
  gas?: bigint;
  nonce?: bigint;
  gasPrice?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  accessList?: { address: Uint8Array; storageKeys: Uint8Array[] }[];
}
