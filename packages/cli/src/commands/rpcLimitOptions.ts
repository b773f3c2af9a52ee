/**
 * The chain node's JSON-RPC limits as flags (`wharf up`, `wharf chain start`), each with a
 * WHARF_* variable; defaults and meanings in packages/chain/docs/security.md.
 */
import { DEFAULT_RPC_THREADS, type RpcLimits } from '@wharf/chain';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { parseBigInt, parseInteger, parsePositiveSeconds, parseSeconds } from '../flags.js';

export interface RpcLimitFlags {
  rpcGasCap: bigint;
  rpcEvmTimeout: number;
  rpcTraceMaxBytes: number;
  rpcMaxFilters: number;
  rpcFilterTimeout: number;
  rpcMaxSubscriptions: number;
  rpcLogsBlockRange: number;
  rpcLogsMaxResults: number;
  rpcLogsMaxAddresses: number;
  rpcLogsMaxTopics: number;
  rpcWsMaxBuffer: number;
  rpcHeaderTimeout: number;
  rpcRequestTimeout: number;
  rpcSendSyncTimeout: number;
  rpcReceiptHold: number;
  rpcThreads: number;
}

const option = <T>(
  flag: string,
  env: string,
  what: string,
  parse: (v: string) => T,
  value: T,
  shown: string,
) => new Option(flag, what).env(env).argParser(parse).default(value, shown);

/** Front threads: each is a thread with its own heap, so a handful at most. */
const MAX_RPC_THREADS = 16;
function parseThreads(value: string): number {
  const n = parseInteger(value);
  if (n > MAX_RPC_THREADS)
    throw new InvalidArgumentError(`expected at most ${MAX_RPC_THREADS} threads, got "${value}"`);
  return n;
}

export function addRpcLimitOptions(cmd: Command): Command {
  return cmd
    .addOption(
      option(
        '--rpc-gas-cap <gas>',
        'WHARF_RPC_GAS_CAP',
        'gas one eth_call/estimateGas/createAccessList/simulateV1 may use (0: no cap)',
        parseBigInt,
        50_000_000n,
        '50000000',
      ),
    )
    .addOption(
      option(
        '--rpc-evm-timeout <seconds>',
        'WHARF_RPC_EVM_TIMEOUT',
        'time one eth_call/estimateGas/createAccessList/simulateV1/debug_trace* may run (0: none)',
        parseSeconds,
        5,
        '5',
      ),
    )
    .addOption(
      option(
        '--rpc-trace-max-bytes <bytes>',
        'WHARF_RPC_TRACE_MAX_BYTES',
        'struct-log bytes one debug_trace* request may produce',
        parseInteger,
        64 * 1024 * 1024,
        '67108864',
      ),
    )
    .addOption(
      option(
        '--rpc-max-filters <n>',
        'WHARF_RPC_MAX_FILTERS',
        'filters per connection',
        parseInteger,
        1000,
        '1000',
      ),
    )
    .addOption(
      option(
        '--rpc-filter-timeout <seconds>',
        'WHARF_RPC_FILTER_TIMEOUT',
        'a filter not polled for this long is removed',
        parseSeconds,
        300,
        '300',
      ),
    )
    .addOption(
      option(
        '--rpc-max-subscriptions <n>',
        'WHARF_RPC_MAX_SUBSCRIPTIONS',
        'subscriptions per WebSocket',
        parseInteger,
        1000,
        '1000',
      ),
    )
    .addOption(
      option(
        '--rpc-logs-block-range <n>',
        'WHARF_RPC_LOGS_BLOCK_RANGE',
        'blocks one eth_getLogs may span',
        parseInteger,
        10_000,
        '10000',
      ),
    )
    .addOption(
      option(
        '--rpc-logs-max-results <n>',
        'WHARF_RPC_LOGS_MAX_RESULTS',
        'logs one eth_getLogs may return',
        parseInteger,
        10_000,
        '10000',
      ),
    )
    .addOption(
      option(
        '--rpc-logs-max-addresses <n>',
        'WHARF_RPC_LOGS_MAX_ADDRESSES',
        'addresses in one log filter',
        parseInteger,
        1000,
        '1000',
      ),
    )
    .addOption(
      option(
        '--rpc-logs-max-topics <n>',
        'WHARF_RPC_LOGS_MAX_TOPICS',
        'alternatives per topic position in one log filter',
        parseInteger,
        1000,
        '1000',
      ),
    )
    .addOption(
      option(
        '--rpc-ws-max-buffer <bytes>',
        'WHARF_RPC_WS_MAX_BUFFER',
        'bytes waiting to be sent on a WebSocket before the slow reader is dropped',
        parseInteger,
        16 * 1024 * 1024,
        '16777216',
      ),
    )
    .addOption(
      option(
        '--rpc-header-timeout <seconds>',
        'WHARF_RPC_HEADER_TIMEOUT',
        "time a client has to send an HTTP request's headers",
        parseSeconds,
        10,
        '10',
      ),
    )
    .addOption(
      option(
        '--rpc-request-timeout <seconds>',
        'WHARF_RPC_REQUEST_TIMEOUT',
        'time a client has to send a whole HTTP request',
        parseSeconds,
        30,
        '30',
      ),
    )
    .addOption(
      option(
        '--rpc-send-sync-timeout <seconds>',
        'WHARF_RPC_SEND_SYNC_TIMEOUT',
        "longest eth_sendRawTransactionSync waits for the receipt (its default, and its timeout's cap)",
        parsePositiveSeconds,
        6,
        '6',
      ),
    )
    .addOption(
      option(
        '--rpc-receipt-hold <seconds>',
        'WHARF_RPC_RECEIPT_HOLD',
        'longest eth_getTransactionReceipt waits for a pooled transaction to be pre-confirmed (0: never)',
        parseSeconds,
        1,
        '1',
      ),
    )
    .addOption(
      option(
        '--rpc-threads <n>',
        'WHARF_RPC_THREADS',
        'worker threads that accept the connections in place of the main thread and answer state reads (0: none, the main thread accepts)',
        parseThreads,
        DEFAULT_RPC_THREADS,
        `${DEFAULT_RPC_THREADS} (2 with 2 or more cores)`,
      ),
    );
}

export function rpcLimitsOf(f: RpcLimitFlags): RpcLimits {
  return {
    gasCap: f.rpcGasCap,
    evmTimeoutMs: Math.round(f.rpcEvmTimeout * 1000),
    traceMaxBytes: f.rpcTraceMaxBytes,
    maxFilters: f.rpcMaxFilters,
    filterTimeoutMs: Math.round(f.rpcFilterTimeout * 1000),
    maxSubscriptions: f.rpcMaxSubscriptions,
    logsMaxBlockRange: f.rpcLogsBlockRange,
    logsMaxResults: f.rpcLogsMaxResults,
    logsMaxAddresses: f.rpcLogsMaxAddresses,
    logsMaxTopics: f.rpcLogsMaxTopics,
    wsMaxBufferedBytes: f.rpcWsMaxBuffer,
    httpHeadersTimeoutMs: Math.round(f.rpcHeaderTimeout * 1000),
    httpRequestTimeoutMs: Math.round(f.rpcRequestTimeout * 1000),
    // At least 1 ms: a fraction that rounds to 0 would time every call out at once.
    sendSyncTimeoutMs: Math.max(1, Math.round(f.rpcSendSyncTimeout * 1000)),
    receiptHoldMs: Math.round(f.rpcReceiptHold * 1000),
    threads: f.rpcThreads,
  };
}
