/**
 * What the RPC layer is given by node.ts, and the method table shape. One file per namespace
 * (eth.ts, net.ts, web3.ts, txpool.ts, debug.ts, filters.ts, subscriptions.ts) exports a
 * Methods table; server.ts merges them.
 */
import type { BlockProducer } from '../builder/blockProducer.js';
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
   * eth_getTransactionReceipt answers for pre-confirmed transactions (blockHash null); false keeps
   * it null until the seal, for clients that reject such receipts (ethers v6).
   */
  preconfReceipts: boolean;
  /** Dev accounts (eth_accounts); empty for imported chains. */
  accounts: Uint8Array[];
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
