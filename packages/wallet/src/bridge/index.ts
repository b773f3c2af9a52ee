/**
 * '@wharf/wallet/bridge' — the wallet across a postMessage boundary, browser-safe (no Node
 * modules). The platform app runs `createBridgeServer` per mini-app iframe; the mini app runs
 * `installIframeWallet` (or `createBridgeProvider` + `announceProvider`).
 *
 *   mini app (iframe)                                   platform app (parent)
 *   EIP-6963 / window.ethereum                          wallet.provider(iframeOrigin)
 *   createBridgeProvider ── parentEndpoint ─ postMessage ─ iframeEndpoint ── createBridgeServer
 */
import { type BridgeProvider, createBridgeProvider } from './client.js';
import { announceProvider, type EIP6963ProviderInfo, type EventTargetLike } from './eip6963.js';
import { parentEndpoint, type MessageEventSourceLike, type PostTarget } from './windowEndpoints.js';

export { type BridgeProvider, createBridgeProvider } from './client.js';
export {
  announceProvider,
  defaultProviderInfo,
  type EIP6963ProviderDetail,
  type EIP6963ProviderInfo,
  type EventTargetLike,
  WHARF_ICON,
} from './eip6963.js';
export {
  BRIDGE_CHANNEL,
  type BridgeEndpoint,
  type BridgeEvent,
  type BridgeHello,
  type BridgeMessage,
  type BridgeRequest,
  type BridgeResponse,
  isBridgeMessage,
} from './protocol.js';
export { type BridgeServer, createBridgeServer } from './server.js';
export {
  endpointPair,
  iframeEndpoint,
  type MessageEventLike,
  type MessageEventSourceLike,
  parentEndpoint,
  type PostTarget,
} from './windowEndpoints.js';
export { ProviderRpcError } from '../errors.js';

/**
 * The mini app's one call: a bridge provider to the parent app, announced with EIP-6963 and,
 * unless `setWindowEthereum` is false, set as `window.ethereum` when that is free.
 */
export function installIframeWallet(options: {
  parentOrigin: string;
  info?: Partial<EIP6963ProviderInfo>;
  setWindowEthereum?: boolean;
  /** For tests: the windows to use instead of the globals. */
  windows?: { self?: MessageEventSourceLike & EventTargetLike; parent?: PostTarget };
}): { provider: BridgeProvider; stop(): void } {
  const self = options.windows?.self;
  const provider = createBridgeProvider({
    endpoint: parentEndpoint({ parentOrigin: options.parentOrigin, parent: options.windows?.parent, self }),
  });
  const announcement = announceProvider({ provider, info: options.info, target: self });
  const scope = (self ?? globalThis) as { ethereum?: unknown };
  if (options.setWindowEthereum !== false && scope.ethereum === undefined) scope.ethereum = provider;
  return {
    provider,
    stop() {
      announcement.stop();
      provider.close();
    },
  };
}
