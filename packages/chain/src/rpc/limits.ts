/**
 * Every limit the JSON-RPC server puts on one request or one connection, with geth's defaults
 * where geth has one. Set through ChainNodeOptions.limits (the CLI's --rpc-* flags); listed with
 * their flags in docs/security.md.
 */
import { availableParallelism } from 'node:os';
import type { CallLimits } from '../execution/call.js';
import {
  DEFAULT_RPC_EVM_TIMEOUT_MS,
  DEFAULT_RPC_GAS_CAP,
  EvmBudget,
  type EvmScheduler,
  immediateScheduler,
} from '../execution/evmBudget.js';

export interface RpcLimits {
  /** Gas one eth_call / estimateGas / createAccessList / simulateV1 may use (geth --rpc.gascap); 0: none. */
  gasCap: bigint;
  /** Wall-clock time of one such request, and of one debug_trace* request, in ms (geth --rpc.evmtimeout); 0: none. */
  evmTimeoutMs: number;
  /** Bytes of struct logs one debug_trace* request may produce (a block's traces together). */
  traceMaxBytes: number;
  /** Filters (eth_new*Filter) one connection may hold; over HTTP, the node's HTTP clients together. */
  maxFilters: number;
  /** A filter nobody polled for this long is removed, in ms (geth: 5 minutes). */
  filterTimeoutMs: number;
  /** Subscriptions one WebSocket may hold. */
  maxSubscriptions: number;
  /** Blocks one eth_getLogs (or a filter's first poll) may span. */
  logsMaxBlockRange: number;
  /** Logs one eth_getLogs may return. */
  logsMaxResults: number;
  /** Addresses in one log filter. */
  logsMaxAddresses: number;
  /** Topic positions (4) and alternatives per position in one log filter. */
  logsMaxTopics: number;
  /** Bytes waiting to be sent on a WebSocket before the node drops the (slow) reader. */
  wsMaxBufferedBytes: number;
  /** Time a client has to send an HTTP request's headers, in ms. */
  httpHeadersTimeoutMs: number;
  /** Time a client has to send a whole HTTP request (headers and body), in ms. */
  httpRequestTimeoutMs: number;
  /**
   * The longest eth_sendRawTransactionSync waits for the receipt, in ms: its default and the cap
   * of its timeout parameter (Base: 6,000). A waiting request holds its connection and a timer.
   */
  sendSyncTimeoutMs: number;
  /**
   * The longest eth_getTransactionReceipt holds its answer for a transaction the pool holds, in
   * ms (decision 0121: four flashblock intervals, at most this); 0: never held.
   */
  receiptHoldMs: number;
  /**
   * Front threads: worker threads that accept the connections in place of the main thread and
   * answer the common state reads themselves (decisions 0330, 0400); 0: the main thread alone.
   */
  threads: number;
}

/**
 * Two front threads where there are two cores to run them (decision 0400): the main thread then
 * accepts no connection, so one thread alone would leave a core to the builder only.
 */
export const DEFAULT_RPC_THREADS = availableParallelism() >= 2 ? 2 : 0;

export const defaultRpcLimits: RpcLimits = {
  gasCap: DEFAULT_RPC_GAS_CAP,
  evmTimeoutMs: DEFAULT_RPC_EVM_TIMEOUT_MS,
  traceMaxBytes: 64 * 1024 * 1024,
  maxFilters: 1_000,
  filterTimeoutMs: 5 * 60_000,
  maxSubscriptions: 1_000,
  logsMaxBlockRange: 10_000,
  logsMaxResults: 10_000,
  logsMaxAddresses: 1_000,
  logsMaxTopics: 1_000,
  wsMaxBufferedBytes: 16 * 1024 * 1024,
  httpHeadersTimeoutMs: 10_000,
  httpRequestTimeoutMs: 30_000,
  sendSyncTimeoutMs: 6_000,
  receiptHoldMs: 1_000,
  threads: DEFAULT_RPC_THREADS,
};

/** A fresh budget (deadline starts now) and the gas cap, for one request's executions. */
export function callLimits(limits: RpcLimits, scheduler: EvmScheduler = immediateScheduler): CallLimits {
  return { gasCap: limits.gasCap, budget: new EvmBudget(limits.evmTimeoutMs, scheduler) };
}
