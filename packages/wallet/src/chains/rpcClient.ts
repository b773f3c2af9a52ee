/**
 * A JSON-RPC 2.0 client over HTTP POST (fetch). Consumer: the wallet core, for forwarding
 * reads, filling transactions and asking an endpoint's eth_chainId.
 */
import { ProviderRpcError } from '../errors.js';

export type FetchLike = (
  input: string,
  init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<{
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}>;

/** The endpoint could not be reached or did not answer JSON-RPC. */
export class RpcTransportError extends Error {
  override readonly name = 'RpcTransportError';
}

let nextId = 1;

/**
 * Calls `method` on `url`. A JSON-RPC error answer becomes a ProviderRpcError with the
 * endpoint's code, message and data; a network failure becomes RpcTransportError.
 */
export async function rpcCall(
  fetchFn: FetchLike,
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 15_000,
): Promise<unknown> {
  const id = nextId++;
  let response: Awaited<ReturnType<FetchLike>>;
  try {
    response = await fetchFn(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new RpcTransportError(error instanceof Error ? error.message : String(error));
  }
  let body: any;
  try {
    body = await response.json();
  } catch {
    throw new RpcTransportError(`HTTP ${response.status}: the answer is not JSON`);
  }
  if (body && typeof body === 'object' && body.error && typeof body.error === 'object') {
    const e = body.error;
    throw new ProviderRpcError(
      typeof e.code === 'number' ? e.code : -32603,
      typeof e.message === 'string' ? e.message : 'Internal JSON-RPC error.',
      e.data,
    );
  }
  if (!body || typeof body !== 'object' || !('result' in body)) {
    throw new RpcTransportError(`HTTP ${response.status}: not a JSON-RPC answer`);
  }
  return body.result;
}
