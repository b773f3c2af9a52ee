/**
 * The messages of the wallet bridge between the platform app (the server side, which holds
 * the wallet) and a mini app in an iframe (the client side). Every message carries `channel`
 * so that other postMessage traffic is ignored.
 *
 *   client ── hello ──────────────────────────> server ── event connect {chainId} ──> client
 *   client ── request {id, method, params} ───> server ── response {id, result | error} ──> client
 *                                               server ── event {event, args} ──────────> client
 */

export const BRIDGE_CHANNEL = 'wharf-wallet-bridge/1';

export type BridgeRequest = {
  channel: typeof BRIDGE_CHANNEL;
  kind: 'request';
  id: number;
  method: string;
  params?: unknown;
};
export type BridgeResponse = {
  channel: typeof BRIDGE_CHANNEL;
  kind: 'response';
  id: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};
export type BridgeEvent = { channel: typeof BRIDGE_CHANNEL; kind: 'event'; event: string; args: unknown[] };
export type BridgeHello = { channel: typeof BRIDGE_CHANNEL; kind: 'hello' };
export type BridgeMessage = BridgeRequest | BridgeResponse | BridgeEvent | BridgeHello;

export function isBridgeMessage(value: unknown): value is BridgeMessage {
  if (!value || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  if (m.channel !== BRIDGE_CHANNEL) return false;
  switch (m.kind) {
    case 'request':
      return typeof m.id === 'number' && typeof m.method === 'string';
    case 'response':
      return typeof m.id === 'number';
    case 'event':
      return typeof m.event === 'string' && Array.isArray(m.args);
    case 'hello':
      return true;
    default:
      return false;
  }
}

/**
 * One side of a bridge, independent of the transport: `send` a message to the other side,
 * `listen` for the other side's messages (already checked to come from the right peer).
 */
export interface BridgeEndpoint {
  send(message: BridgeMessage): void;
  listen(handler: (message: BridgeMessage) => void): () => void;
}
