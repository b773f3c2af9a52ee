/**
 * The wallet: `createWallet(options).provider(origin)` gives one EIP-1193 provider per site, all
 * sharing one core (accounts, chains, permissions, approvals, storage; walletCore.ts);
 * `createWalletProvider(options)` is the one-origin shortcut. This file checks the request's
 * shape and the policy, then routes it.
 *
 *   provider.request ─> policy (4100) ─> methods/*.ts handler ─> approvals (4001 / -32002)
 *                                     │                       └> storage (chains, permissions)
 *                                     └> forwarded read methods ─> the origin's chain RPC (fetch)
 *
 * Browser-safe: the JSON file storage is imported only when `storage` is a path.
 */
import { Approvals } from './approvals.js';
import type { FetchLike } from './chains/rpcClient.js';
import { ProviderRpcError, toProviderRpcError, walletErrorCodes, walletErrors } from './errors.js';
import { Emitter } from './events.js';
import { forwardedMethods, handlers, needsAccounts } from './methods/index.js';
import { builtInChains, loadWallet, WalletCore } from './walletCore.js';
import type {
  Wallet,
  WalletEvent,
  WalletOptions,
  WalletProvider,
  WalletProviderOptions,
} from './walletTypes.js';

export type {
  ChainInput,
  KeystoreInput,
  Wallet,
  WalletEvent,
  WalletOptions,
  WalletPolicy,
  WalletProvider,
  WalletProviderOptions,
} from './walletTypes.js';

/** The origin of `createWalletProvider` when none is given. */
export const DEFAULT_ORIGIN = 'wharf://wallet';

/** Creates the wallet core. Loading (storage, keystores) starts at once; requests wait for it. */
export function createWallet(options: WalletOptions = {}): Wallet {
  const builtIn = builtInChains(options);
  const fetchFn: FetchLike =
    options.fetch ?? ((input, init) => (globalThis.fetch as unknown as FetchLike)(input, init));
  const disabled = new Set(options.policy?.disabledMethods ?? []);
  const providers = new Map<string, { provider: WalletProvider; emitter: Emitter }>();
  let closed = false;

  const ready: Promise<WalletCore> = loadWallet(options, builtIn).then(
    (state) =>
      new WalletCore(state, {
        fetch: fetchFn,
        approvals: new Approvals(options.approve),
        defaultChainId: builtIn[0].chainId,
        policy: options.policy,
        emit: (origin: string, event: WalletEvent, ...args: unknown[]) =>
          providers.get(origin)?.emitter.emit(event, ...args),
      }),
  );
  // A failed start surfaces on every request; keep it from being an unhandled rejection.
  ready.catch(() => undefined);

  async function handle(origin: string, args: unknown): Promise<unknown> {
    if (!args || typeof args !== 'object' || Array.isArray(args)) {
      throw new ProviderRpcError(
        walletErrorCodes.invalidRequest,
        'Expected a single, non-array, object argument.',
      );
    }
    const { method, params } = args as { method?: unknown; params?: unknown };
    if (typeof method !== 'string' || method.length === 0) {
      throw new ProviderRpcError(
        walletErrorCodes.invalidRequest,
        "'args.method' must be a non-empty string.",
      );
    }
    if (params !== undefined && (params === null || typeof params !== 'object')) {
      throw new ProviderRpcError(
        walletErrorCodes.invalidRequest,
        "'args.params' must be an object or array if provided.",
      );
    }
    if (closed) throw new ProviderRpcError(walletErrorCodes.disconnected);
    const w = await ready;
    if (disabled.has(method)) throw walletErrors.unauthorized({ method });
    if (needsAccounts.has(method) && w.permittedAccounts(origin).length === 0) {
      throw walletErrors.unauthorized({ method });
    }
    const handler = handlers[method];
    if (handler) return handler(w, origin, params, method);
    if (forwardedMethods.has(method)) return w.chainRpc(origin, method, Array.isArray(params) ? params : []);
    throw walletErrors.unsupportedMethod(method);
  }

  function provider(origin: string): WalletProvider {
    const known = providers.get(origin);
    if (known) return known.provider;
    const emitter = new Emitter();
    const p: WalletProvider = {
      origin,
      request: (args) =>
        handle(origin, args).catch((error) => {
          throw toProviderRpcError(error);
        }),
      on(event, listener) {
        emitter.on(event, listener);
        return p;
      },
      removeListener(event, listener) {
        emitter.removeListener(event, listener);
        return p;
      },
    };
    providers.set(origin, { provider: p, emitter });
    ready.then(
      (w) => {
        if (!closed) emitter.emit('connect', { chainId: w.currentChain(origin).chainId });
      },
      () => undefined,
    );
    return p;
  }

  // Exposed for callers that want to await start-up; like `ready`, a failure here must not be an
  // unhandled rejection when nobody awaits it (requests report it instead).
  const readyVoid = ready.then(() => undefined);
  readyVoid.catch(() => undefined);

  return {
    provider,
    ready: readyVoid,
    accounts: async () => (await ready).allAddresses(),
    chains: async () => (await ready).s.registry.list(),
    connectedOrigins: async () => {
      const { s } = await ready;
      return Object.keys(s.permissions).filter((o) => s.permissions[o]?.eth_accounts);
    },
    close() {
      if (closed) return;
      closed = true;
      for (const { emitter } of providers.values())
        emitter.emit('disconnect', new ProviderRpcError(walletErrorCodes.disconnected));
    },
  };
}

/** Creates the EIP-1193 provider of one origin (`options.origin`, default `wharf://wallet`). */
export function createWalletProvider(options: WalletProviderOptions = {}): WalletProvider {
  const { origin = DEFAULT_ORIGIN, ...rest } = options;
  return createWallet(rest).provider(origin);
}
