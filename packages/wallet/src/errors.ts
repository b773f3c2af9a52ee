/**
 * Errors of the wallet. Every failure leaves the provider as a `ProviderRpcError`
 * (EIP-1193): `code`, `message`, optional `data`. The codes are one registry below.
 */

/** Every error code the wallet answers with, one comment per code. */
export const walletErrorCodes = {
  /** -32600 Invalid request: the request object is not a valid `{ method, params }`. */
  invalidRequest: -32600,
  /** -32601 Method not found: a permission name in wallet_requestPermissions is unknown. */
  methodNotFound: -32601,
  /** -32602 Invalid params: a parameter failed validation (wallet_addEthereumChain's messages). */
  invalidParams: -32602,
  /** -32603 Internal error: the chain's RPC endpoint is unreachable or answered nonsense. */
  internal: -32603,
  /** -32002 Resource unavailable: an approval is already pending for this origin. */
  resourceUnavailable: -32002,
  /** 4001 User rejected request: the person (or a missing `approve`) said no. */
  userRejectedRequest: 4001,
  /** 4100 Unauthorized: the method is off by policy, or needs accounts and the origin is not connected. */
  unauthorized: 4100,
  /** 4200 Unsupported method: the wallet does not know the method. */
  unsupportedMethod: 4200,
  /** 4900 Disconnected: the provider is disconnected from all chains. */
  disconnected: 4900,
  /** 4901 Chain disconnected: the current chain's RPC endpoint cannot be reached. */
  chainDisconnected: 4901,
  /** 4902 Unrecognized chain ID: the chain is not added, or its endpoint reports another chain id. */
  unrecognizedChain: 4902,
} as const;

export type WalletErrorCode = (typeof walletErrorCodes)[keyof typeof walletErrorCodes];

/** The message each code carries when no more specific one is given. */
export const defaultErrorMessages: Record<WalletErrorCode, string> = {
  [-32600]: 'The JSON sent is not a valid Request object.',
  [-32601]: 'The method does not exist / is not available.',
  [-32602]: 'Invalid method parameter(s).',
  [-32603]: 'Internal JSON-RPC error.',
  [-32002]: 'Resource unavailable',
  4001: 'User rejected the request',
  4100: 'The requested method and/or account has not been authorized by the user.',
  4200: 'The Provider does not support the requested method.',
  4900: 'The Provider is disconnected from all chains.',
  4901: 'The Provider is not connected to the requested chain.',
  4902: 'Unrecognized chain ID',
};

/** An EIP-1193 provider error. `code` is a wallet code, or any code a chain endpoint answered. */
export class ProviderRpcError extends Error {
  override readonly name = 'ProviderRpcError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message?: string, data?: unknown) {
    super(message ?? defaultErrorMessages[code as WalletErrorCode] ?? 'Unknown error');
    this.code = code;
    this.data = data;
  }

  /** The wire shape: `{ code, message, data? }`. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Helpers that build the wallet's errors; the only place codes become errors. */
export const walletErrors = {
  invalidParams: (message: string, data?: unknown) =>
    new ProviderRpcError(walletErrorCodes.invalidParams, message, data),
  internal: (message: string, data?: unknown) =>
    new ProviderRpcError(walletErrorCodes.internal, message, data),
  userRejected: () => new ProviderRpcError(walletErrorCodes.userRejectedRequest),
  unauthorized: (data?: unknown) => new ProviderRpcError(walletErrorCodes.unauthorized, undefined, data),
  unsupportedMethod: (method: string) =>
    new ProviderRpcError(
      walletErrorCodes.unsupportedMethod,
      `The Provider does not support the requested method: ${method}`,
      { method },
    ),
  unrecognizedChain: (chainId: unknown) =>
    new ProviderRpcError(walletErrorCodes.unrecognizedChain, undefined, { chainId }),
  alreadyPending: (origin: string, type: string) =>
    new ProviderRpcError(
      walletErrorCodes.resourceUnavailable,
      `Request of type '${type}' already pending for origin ${origin}. Please wait.`,
    ),
  chainDisconnected: (chainId: string, cause: string) =>
    new ProviderRpcError(walletErrorCodes.chainDisconnected, undefined, { chainId, cause }),
};

/** Turns anything thrown into a ProviderRpcError (one place: domain errors -> wire errors). */
export function toProviderRpcError(error: unknown): ProviderRpcError {
  if (error instanceof ProviderRpcError) return error;
  if (error && typeof error === 'object' && typeof (error as { code?: unknown }).code === 'number') {
    const e = error as { code: number; message?: unknown; data?: unknown };
    return new ProviderRpcError(e.code, typeof e.message === 'string' ? e.message : undefined, e.data);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderRpcError(walletErrorCodes.internal, message);
}
