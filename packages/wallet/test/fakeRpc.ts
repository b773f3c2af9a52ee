/**
 * A tiny JSON-RPC endpoint on 127.0.0.1 (port 0) for the wallet's tests: it answers eth_chainId
 * with the chain id it is given, records every request, and answers what `handlers` return.
 * It stands in for the chain node, which is built elsewhere.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRpc {
  url: string;
  calls: { method: string; params: unknown[] }[];
  close(): Promise<void>;
}

export type FakeHandler = (params: unknown[]) => unknown;

export async function startFakeRpc(
  chainId: string,
  handlers: Record<string, FakeHandler> = {},
): Promise<FakeRpc> {
  const calls: FakeRpc['calls'] = [];
  const server: Server = createServer((req, res) => {
    // CORS, so that a wallet in a browser page may call it (as it must call a real node).
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', 'content-type');
    res.setHeader('access-control-allow-methods', 'POST, OPTIONS');
    if (req.method === 'OPTIONS') {
      res.statusCode = 204;
      res.end();
      return;
    }
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const request = JSON.parse(body) as { id: number; method: string; params?: unknown[] };
      calls.push({ method: request.method, params: request.params ?? [] });
      let answer: Record<string, unknown>;
      try {
        const handler = request.method === 'eth_chainId' ? () => chainId : handlers[request.method];
        answer = handler
          ? { result: handler(request.params ?? []) }
          : {
              error: {
                code: -32601,
                message: `the method ${request.method} does not exist/is not available`,
              },
            };
      } catch (error) {
        answer = { error: { code: -32000, message: (error as Error).message } };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...answer }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on 127.0.0.1 where nothing listens. */
export async function unusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
