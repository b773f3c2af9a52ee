/**
 * The chain node's JSON-RPC over HTTP for the chain view and the latency probe: viem's client,
 * one per URL, raw methods (the views read hex fields themselves). No retries: a view polls
 * again anyway, and a probe must time one attempt.
 */
import { createPublicClient, http, type PublicClient } from 'viem';

const clients = new Map<string, PublicClient>();

export function chainRpc(url: string): PublicClient {
  let client = clients.get(url);
  if (!client) {
    client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
    clients.set(url, client);
  }
  return client;
}
