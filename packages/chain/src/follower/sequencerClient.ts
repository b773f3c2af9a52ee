/**
 * JSON-RPC over HTTP to the sequencer a follower follows. An error the sequencer answered comes
 * back as the same RpcError (code, message, data), so a forwarded call answers what the sequencer
 * answered; a sequencer that cannot be reached is -32000 naming it.
 */
import { RpcError, serverError } from '../rpc/errors.js';

export class SequencerClient {
  private id = 0;

  constructor(
    readonly url: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw serverError(`sequencer unreachable: ${(e as Error).message}`);
    }
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw serverError(`sequencer answered HTTP ${res.status} without JSON-RPC`);
    }
    if (body.error) throw new RpcError(body.error.code, body.error.message, body.error.data);
    return body.result as T;
  }
}
