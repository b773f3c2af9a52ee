/**
 * Every JSON-RPC error code the node answers with: the chain's one registry of codes, each listed
 * in docs/errors.md (test/errors-registry.test.ts checks both ways). Here, in a shared leaf, so
 * that execution/ (eth_simulateV1's codes) and rpc/ name the same constants; rpc/errors.ts turns
 * domain errors into wire errors with them.
 */
export const ErrorCode = {
  /** Execution reverted (eth_call, eth_estimateGas); `data` carries the revert bytes. */
  ExecutionReverted: 3,
  /** eth_sendRawTransactionSync: pooled but not pre-confirmed in time (EIP-7966); `data` the hash. */
  TransactionTimeout: 4,
  /** Server error: a domain refusal (pool rules, header not found, execution failure). */
  Server: -32000,
  /** Body is not JSON. */
  Parse: -32700,
  /** Not a valid JSON-RPC 2.0 request object, an empty or oversized batch, an oversized body. */
  InvalidRequest: -32600,
  /** No such method (or namespace). */
  MethodNotFound: -32601,
  /** Bad parameters; the message names the parameter. */
  InvalidParams: -32602,
  /** A bug: the node failed while answering. */
  Internal: -32603,
  /** eth_simulateV1 (validation on): nonce below / above the sender's. */
  SimNonceTooLow: -38010,
  SimNonceTooHigh: -38011,
  /** eth_simulateV1 (validation on): fee cap below the block's base fee. */
  SimFeeCapTooLow: -38012,
  /** eth_simulateV1: a call's gas below its intrinsic gas. */
  SimIntrinsicGas: -38013,
  /** eth_simulateV1: the sender cannot pay gas * price + value. */
  SimInsufficientFunds: -38014,
  /** eth_simulateV1: a call's gas does not fit in the simulated block. */
  SimBlockGasLimit: -38015,
  /** eth_simulateV1 block overrides: numbers / timestamps not increasing. */
  SimBlockNumberOrder: -38020,
  SimTimestampOrder: -38021,
  /** eth_simulateV1 state overrides: movePrecompileToAddress onto the precompile itself. */
  SimMovePrecompileToSelf: -38022,
  /** eth_simulateV1: more than 256 blocks. */
  SimTooManyBlocks: -38026,
  /** eth_simulateV1: a simulated call halted (in `calls[i].error`, not a top-level error). */
  SimVmError: -32015,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];
