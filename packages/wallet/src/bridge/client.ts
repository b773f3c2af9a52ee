/**
 * The mini app's half of the bridge: an EIP-1193 provider whose requests travel to the app's
 * wallet. Browser-safe.
 */
import { ProviderRpcError } from '../errors.js';
import { Emitter, type Listener } from '../events.js';
import { BRIDGE_CHANNEL, type BridgeEndpoint, type BridgeMessage } from './protocol.js';

export interface BridgeProvider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
  on(event: string, listener: Listener): BridgeProvider;
  removeListener(event: string, listener: Listener): BridgeProvider;
  /** The chain id last reported by the wallet (undefined before `connect`). */
  readonly chainId: string | undefined;
  /** True once the wallet answered the handshake. */
  isConnected(): boolean;
  /** Stops listening; pending requests fail with 4900. */
  close(): void;
}

/** Hellos before giving up: 50 ms doubling to 1 s, about a minute in all. */
const MAX_HELLOS = 64;

export function createBridgeProvider(options: { endpoint: BridgeEndpoint }): BridgeProvider {
  const { endpoint } = options;
  const emitter = new Emitter();
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let nextId = 1;
  let chainId: string | undefined;
  let connected = false;
  let closed = false;

  // The handshake: say hello until the app answers (its server may start after this script),
  // and hold requests until then, so none is posted into the void.
  const queued: BridgeMessage[] = [];
  let heard = false;
  let helloTimer: ReturnType<typeof setTimeout> | undefined;
  const hello = (attempt: number) => {
    if (heard || closed) return;
    if (attempt >= MAX_HELLOS) {
      // Nobody answers: fail what waits rather than hang.
      for (const message of queued.splice(0)) {
        if (message.kind !== 'request') continue;
        pending.get(message.id)?.reject(new ProviderRpcError(4900));
        pending.delete(message.id);
      }
      return;
    }
    endpoint.send({ channel: BRIDGE_CHANNEL, kind: 'hello' });
    helloTimer = setTimeout(() => hello(attempt + 1), Math.min(50 * 2 ** attempt, 1000));
  };
  const onHeard = () => {
    if (heard) return;
    heard = true;
    clearTimeout(helloTimer);
    for (const message of queued.splice(0)) endpoint.send(message);
  };
  const stop = endpoint.listen((message) => {
    onHeard();
    if (message.kind === 'response') {
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      if (message.error)
        waiter.reject(new ProviderRpcError(message.error.code, message.error.message, message.error.data));
      else waiter.resolve(message.result);
      return;
    }
    if (message.kind !== 'event') return;
    const args = [...message.args];
    switch (message.event) {
      case 'connect':
        chainId = (args[0] as { chainId?: string } | undefined)?.chainId ?? chainId;
        if (connected) return; // the handshake and the wallet's own connect both report it
        connected = true;
        break;
      case 'chainChanged':
        chainId = args[0] as string;
        break;
      case 'disconnect': {
        connected = false;
        const e = args[0] as { code?: number; message?: string; data?: unknown } | undefined;
        args[0] = new ProviderRpcError(e?.code ?? 4900, e?.message, e?.data);
        break;
      }
    }
    emitter.emit(message.event, ...args);
  });

  hello(0);

  const provider: BridgeProvider = {
    request(args) {
      if (closed) return Promise.reject(new ProviderRpcError(4900));
      if (!args || typeof args !== 'object' || typeof args.method !== 'string' || !args.method) {
        return Promise.reject(new ProviderRpcError(-32600, "'args.method' must be a non-empty string."));
      }
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const message: BridgeMessage = {
          channel: BRIDGE_CHANNEL,
          kind: 'request',
          id,
          method: args.method,
          ...(args.params === undefined ? {} : { params: args.params }),
        };
        try {
          if (heard) endpoint.send(message);
          else queued.push(message);
        } catch (error) {
          pending.delete(id);
          reject(new ProviderRpcError(-32603, error instanceof Error ? error.message : String(error)));
        }
      });
    },
    on(event, listener) {
      emitter.on(event, listener);
      return provider;
    },
    removeListener(event, listener) {
      emitter.removeListener(event, listener);
      return provider;
    },
    get chainId() {
      return chainId;
    },
    isConnected: () => connected,
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(helloTimer);
      stop();
      for (const waiter of pending.values()) waiter.reject(new ProviderRpcError(4900));
      pending.clear();
    },
  };
  return provider;
}
