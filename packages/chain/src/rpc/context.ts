/**
 * What the RPC layer is given by node.ts, and the method table shape. One file per namespace
 * (eth.ts, net.ts, web3.ts, txpool.ts, debug.ts, filters.ts, subscriptions.ts) exports a
 * Methods table; server.ts merges them.
 */
import type { BlockProducer } from '../builder/blockProducer.js';
import type { DevApi } from '../builder/devApi.js';
import type { ChainContext } from '../execution/chainContext.js';
import type { EvmScheduler } from '../execution/evmBudget.js';
import type { TxPool } from '../txpool/types.js';
import type { FilterManager } from './filterManager.js';
import type { RpcLimits } from './limits.js';
import type { Params } from './params.js';

export interface RpcContext {
  chain: ChainContext;
  pool: TxPool;
  producer: BlockProducer;
  filters: FilterManager;
  clientVersion: string;
  /**
   * The block being built in the spec table's null shape (`number`, `hash`, receipts' `blockHash`
   * null) instead of Base's (number set, zero hash). `--pending-nulls`; see format.ts PendingShape.
   */
  pendingNulls: boolean;
  /** Dev accounts (eth_accounts); empty for imported chains. */
  accounts: Uint8Array[];
  /** The test methods' controls (anvil_*, hardhat_*, evm_*); absent where they make no sense. */
  dev?: DevApi;
  /** Per-request and per-connection limits (docs/security.md). */
  limits: RpcLimits;
  /** Where long executions wait for their turns (the server's request queue, once it runs). */
  scheduler?: EvmScheduler;
  log?: (e: unknown) => void;
}

/** A live connection (WebSocket) for subscriptions; undefined over HTTP. */
export interface Connection {
  send(message: unknown): void;
  onClose(fn: () => void): void;
  subscriptions: Map<string, () => void>;
}

export interface Method {
  /** Parameter names, in order: error messages name them. */
  params: string[];
  /** How many of them are required. */
  required: number;
  run(p: Params, c: RpcContext, conn?: Connection): unknown | Promise<unknown>;
}

export type Methods = Record<string, Method>;

export function method(params: string[], required: number, run: Method['run']): Method {
  return { params, required, run };
}
