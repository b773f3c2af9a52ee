/**
 * What the RPC layer is given by node.ts, and the method table shape. One file per namespace
 * (eth.ts, net.ts, web3.ts, txpool.ts, debug.ts, filters.ts, subscriptions.ts) exports a
 * Methods table; server.ts merges them.
 */
import type { Block } from '@ethereumjs/block';
import type { DevApi } from '../builder/devApi.js';
import type { BuiltListener, FlashblockListener, SealListener } from '../builder/events.js';
import type { PendingSnapshot } from '../builder/pendingBlock.js';
import type { ChainContext } from '../execution/chainContext.js';
import type { EvmScheduler } from '../execution/evmBudget.js';
import type { ChainReader } from '../reader/chainReader.js';
import type { TxPool } from '../txpool/types.js';
import type { FilterManager } from './filterManager.js';
import type { RpcLimits } from './limits.js';
import type { Params } from './params.js';

/** The builder as the RPC sees it. Provider: builder/blockProducer.ts. */
export interface Producer {
  /** The block being built as of its last flashblock (prefer `reader.pending()` for reads). */
  readonly pending: PendingSnapshot;
  onSealed(l: SealListener): () => void;
  onFlashblock(l: FlashblockListener): () => void;
  onFlashblockBuilt(l: BuiltListener): () => void;
  /** Publishes a last flashblock and seals the pending block now. */
  mine(): Promise<Block>;
}

export interface RpcContext {
  /** What execution needs (the spec, the VM's block hashes, trie nodes): call, trace, simulate. */
  chain: ChainContext;
  /** Every read of blocks, states, transactions and code, pending included. */
  reader: ChainReader;
  pool: TxPool;
  producer: Producer;
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
  /** Set by the filter methods: who this connection's filters belong to (filters.ts). */
  filterOwner?: string;
}

export interface Method {
  /** Parameter names, in order: error messages name them. */
  params: string[];
  /** How many of them are required. */
  required: number;
  /**
   * `client`: the caller's address (HTTP), which per-client limits are counted by. `prepared`:
   * what `prepare` returned for this request, when it ran.
   */
  run(
    p: Params,
    c: RpcContext,
    conn?: Connection,
    client?: string,
    prepared?: unknown,
  ): unknown | Promise<unknown>;
  /**
   * Optional: starts, ahead of the request's turn in a batch, work that does not depend on the
   * requests before it (eth_sendRawTransaction: decoding and the sender's recovery on the worker
   * thread). Given the raw params before any check; must throw nothing and change nothing a
   * client sees (every check and error stays in `run`, which gets the result).
   */
  prepare?(params: unknown[], c: RpcContext): unknown;
}

export type Methods = Record<string, Method>;

export function method(
  params: string[],
  required: number,
  run: Method['run'],
  prepare?: Method['prepare'],
): Method {
  return prepare ? { params, required, run, prepare } : { params, required, run };
}
