/**
 * JSON-RPC error codes, and the ONE place where domain errors become wire errors (toRpcError).
 * The codes are primitives/errorCodes.ts (listed in docs/errors.md).
 */
import { DevMethodError } from '../builder/devControls.js';
import { CallError } from '../execution/call.js';
import { EvmTimeout } from '../execution/evmBudget.js';
import { TraceTooLarge } from '../execution/trace.js';
import { SimulateError } from '../execution/simulateError.js';
import { ErrorCode } from '../primitives/errorCodes.js';
import { StateUnavailableError } from '../storage/chainStore.js';
import { ForkError } from '../storage/forkSource.js';
import { TxPoolError } from '../txpool/types.js';

export { ErrorCode };

export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const invalidParams = (message: string) => new RpcError(ErrorCode.InvalidParams, message);
export const serverError = (message: string) => new RpcError(ErrorCode.Server, message);
export const headerNotFound = () => serverError('header not found');

export interface WireError {
  code: number;
  message: string;
  data?: unknown;
}

export function toRpcError(e: unknown, log?: (e: unknown) => void): WireError {
  if (e instanceof RpcError)
    return e.data === undefined
      ? { code: e.code, message: e.message }
      : { code: e.code, message: e.message, data: e.data };
  // geth's `execution aborted (timeout = 5s)` (--rpc-evm-timeout).
  if (e instanceof EvmTimeout) return { code: ErrorCode.Server, message: e.message };
  // debug_trace* past --rpc-trace-max-bytes.
  if (e instanceof TraceTooLarge) return { code: ErrorCode.Server, message: e.message };
  if (e instanceof TxPoolError) return { code: ErrorCode.Server, message: e.message };
  // A fork's remote did not answer a read this request needed (names --fork-url).
  if (e instanceof ForkError) return { code: ErrorCode.Server, message: e.message };
  // State of a block older than --state-window (storage/chainStore.ts).
  if (e instanceof StateUnavailableError) return { code: ErrorCode.Server, message: e.message };
  // A test method refused (a timestamp in the past, a revert it cannot do, ...).
  if (e instanceof DevMethodError) return { code: ErrorCode.Server, message: e.message };
  // eth_simulateV1's -380xx codes, and state overrides refused (eth_call, eth_estimateGas too).
  if (e instanceof SimulateError) return { code: e.code, message: e.message };
  if (e instanceof CallError) {
    if (e.kind === 'revert')
      return {
        code: ErrorCode.ExecutionReverted,
        message: e.message,
        data: `0x${Buffer.from(e.data ?? new Uint8Array(0)).toString('hex')}`,
      };
    return { code: ErrorCode.Server, message: e.message };
  }
  log?.(e);
  return { code: ErrorCode.Internal, message: `internal error: ${(e as Error)?.message ?? String(e)}` };
}
