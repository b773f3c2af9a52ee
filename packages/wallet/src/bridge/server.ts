/**
 * The app's half of the bridge: answers an iframe's requests with a wallet provider and passes
 * the provider's events on. The provider should be `wallet.provider(iframeOrigin)`, so that
 * permissions, approvals and the selected chain belong to the mini app's origin.
 */
import { toProviderRpcError } from '../errors.js';
import type { WalletProvider } from '../wallet.js';
import { BRIDGE_CHANNEL, type BridgeEndpoint, type BridgeMessage } from './protocol.js';

/** The provider events passed to the iframe. */
const forwardedEvents = ['connect', 'disconnect', 'chainChanged', 'accountsChanged', 'message'] as const;

export interface BridgeServer {
  /** Stops answering and stops passing events. */
  close(): void;
}

export function createBridgeServer(options: {
  provider: Pick<WalletProvider, 'request' | 'on' | 'removeListener'>;
  endpoint: BridgeEndpoint;
}): BridgeServer {
  const { provider, endpoint } = options;
  let open = true;
  const send = (message: BridgeMessage) => {
    if (open) endpoint.send(message);
  };

  const listeners = forwardedEvents.map((event) => {
    const listener = (...args: unknown[]) =>
      send({
        channel: BRIDGE_CHANNEL,
        kind: 'event',
        event,
        args: args.map((a) => (a instanceof Error ? toProviderRpcError(a).toJSON() : a)),
      });
    provider.on(event, listener);
    return [event, listener] as const;
  });

  const stop = endpoint.listen((message) => {
    if (message.kind === 'hello') {
      provider.request({ method: 'eth_chainId' }).then(
        (chainId) => send({ channel: BRIDGE_CHANNEL, kind: 'event', event: 'connect', args: [{ chainId }] }),
        () => undefined,
      );
      return;
    }
    if (message.kind !== 'request') return;
    const { id, method, params } = message;
    provider.request(params === undefined ? { method } : { method, params }).then(
      (result) => send({ channel: BRIDGE_CHANNEL, kind: 'response', id, result: result ?? null }),
      (error) =>
        send({ channel: BRIDGE_CHANNEL, kind: 'response', id, error: toProviderRpcError(error).toJSON() }),
    );
  });

  return {
    close() {
      if (!open) return;
      open = false;
      stop();
      for (const [event, listener] of listeners) provider.removeListener(event, listener);
    },
  };
}
