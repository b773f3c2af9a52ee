/** A minimal JSON-RPC 2.0 client over HTTP for the chain node (the dashboard's chain view). */

export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

let id = 0;

export async function rpc<T>(
  url: string,
  method: string,
  params: unknown[] = [],
  signal?: AbortSignal,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new RpcError(
      -1,
      `The chain at ${url} does not answer (is it running, and does it allow this page's origin?)`,
    );
  }
  const body = (await response.json().catch(() => undefined)) as
    | { result?: T; error?: { code: number; message: string } }
    | undefined;
  if (!body) throw new RpcError(-1, `The chain at ${url} answered ${response.status} without JSON`);
  if (body.error) throw new RpcError(body.error.code, body.error.message);
  return body.result as T;
}
