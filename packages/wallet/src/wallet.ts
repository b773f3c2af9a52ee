/**
 * The wallet core: accounts, chains, permissions, approvals and storage, shared by every
 * origin's provider. `createWallet(options).provider(origin)` gives one EIP-1193 provider per
 * site; `createWalletProvider(options)` is the one-origin shortcut.
 *
 *   provider.request ─> policy (4100) ─> method handler ─> approvals (4001 / -32002)
 *                                     │                 └> storage (chains, permissions)
 *                                     └> read methods ─> the origin's chain RPC (fetch)
 *
 * Browser-safe: the JSON file storage is imported only when `storage` is a path.
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { privateKeyToAccount } from 'viem/accounts';
import { decryptKeystore, type KeystoreV3 } from './accounts/keystore.js';
import { Approvals, type ApproveFn } from './approvals.js';
import {
  ChainRegistry,
  type ChainRecord,
  sameUrl,
  toHexChainId,
  wharfLocalChain,
} from './chains/chainRegistry.js';
import { type FetchLike, RpcTransportError, rpcCall } from './chains/rpcClient.js';
import {
  validateAddEthereumChainParameter,
  validateSwitchEthereumChainParams,
} from './chains/validateAddEthereumChain.js';
import { ProviderRpcError, toProviderRpcError, walletErrorCodes, walletErrors } from './errors.js';
import { Emitter, type Listener } from './events.js';
import {
  newPermissionId,
  type Permission,
  type PermissionTable,
  type StoredPermission,
  toPermission,
} from './permissions.js';
import { signPersonalMessage, signTypedDataV4 } from './signing.js';
import { checkSiweDomain } from './siweDomain.js';
import { memoryStorage, type WalletStorage } from './storage/storage.js';
import { prepareTransaction, transactionToHex } from './transactions/prepareTransaction.js';

/** A keystore to unlock at start: the v3 JSON (object or text) and its password. */
export interface KeystoreInput {
  json: KeystoreV3 | string;
  password: string;
}

/** A chain given in `options.chains`; `chainId` may be hex or a number. */
export type ChainInput = Omit<ChainRecord, 'chainId'> & { chainId: string | number };

/** What the wallet allows. */
export interface WalletPolicy {
  /** Methods answered with 4100, e.g. `['wallet_addEthereumChain']` to turn adding chains off. */
  disabledMethods?: string[];
  /**
   * Ask before wallet_switchEthereumChain changes an origin's chain (approval type
   * `switchEthereumChain`). Default false: switching to a known chain needs no approval.
   */
  confirmChainSwitch?: boolean;
}

export interface WalletOptions {
  /** Accounts as raw private keys (dev accounts, scripts). */
  privateKeys?: `0x${string}`[];
  /** Accounts from Web3 Secret Storage v3 files. */
  keystore?: KeystoreInput | KeystoreInput[];
  /** A JSON file path (Node) or an object with async `get(key)` / `set(key, value)`. Default: memory. */
  storage?: string | WalletStorage;
  /** How a person says yes (`true`) or no (`false`). Without it every approval is 4001. */
  approve?: ApproveFn;
  /** `fetch` for the chains' RPC endpoints. Default: `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Chains known from the start; the first is where a new origin starts. Default: wharf local (31337). */
  chains?: ChainInput[];
  policy?: WalletPolicy;
}

export interface WalletProviderOptions extends WalletOptions {
  /** The site this provider serves (permissions and the selected chain are per origin). */
  origin?: string;
}

/** The EIP-1193 provider of one origin. */
export interface WalletProvider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
  on(event: WalletEvent, listener: Listener): WalletProvider;
  removeListener(event: WalletEvent, listener: Listener): WalletProvider;
  /** The origin this provider serves. */
  readonly origin: string;
}

export type WalletEvent = 'connect' | 'disconnect' | 'chainChanged' | 'accountsChanged' | 'message';

/** The shared wallet behind the providers. */
export interface Wallet {
  /** The provider of `origin` (one object per origin). */
  provider(origin: string): WalletProvider;
  /** Resolves when storage is loaded and keystores are unlocked. */
  readonly ready: Promise<void>;
  /** All accounts of the wallet (not per origin). */
  accounts(): Promise<`0x${string}`[]>;
  /** All chains the wallet knows. */
  chains(): Promise<ChainRecord[]>;
  /** Origins that have an eth_accounts permission. */
  connectedOrigins(): Promise<string[]>;
  /** Disconnects every provider: emits `disconnect` (4900); later requests answer 4900. */
  close(): void;
}

/** The origin of `createWalletProvider` when none is given. */
export const DEFAULT_ORIGIN = 'wharf://wallet';

const STORAGE_KEYS = {
  chains: 'chains',
  permissions: 'permissions',
  selectedChains: 'selectedChains',
} as const;

/** Read methods forwarded to the chain's RPC URL. Anything else the wallet does not handle is 4200. */
const forwardedMethods = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_blobBaseFee',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getProof',
  'eth_getTransactionCount',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionReceipt',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_getLogs',
  'eth_newFilter',
  'eth_newBlockFilter',
  'eth_newPendingTransactionFilter',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_uninstallFilter',
  'eth_createAccessList',
  'eth_simulateV1',
  'eth_syncing',
  'eth_protocolVersion',
  'eth_sendRawTransaction',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
]);

/** Methods that need the origin to be connected (an eth_accounts permission). */
const accountMethods = new Set([
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'eth_signTransaction',
]);

interface State {
  storage: WalletStorage;
  accounts: PrivateKeyAccount[];
  registry: ChainRegistry;
  permissions: PermissionTable;
  selectedChains: Record<string, `0x${string}`>;
}

function normalizeChainInput(chain: ChainInput): ChainRecord {
  return { ...structuredClone(chain), chainId: toHexChainId(chain.chainId) } as ChainRecord;
}

async function openStorage(storage: WalletOptions['storage']): Promise<WalletStorage> {
  if (storage === undefined) return memoryStorage();
  if (typeof storage === 'string') {
    const { jsonFileStorage } = await import('./storage/jsonFileStorage.js');
    return jsonFileStorage(storage);
  }
  return storage;
}

/** Creates the wallet core. Loading (storage, keystores) starts at once; requests wait for it. */
export function createWallet(options: WalletOptions = {}): Wallet {
  const builtIn = (options.chains?.length ? options.chains : [wharfLocalChain]).map(normalizeChainInput);
  const defaultChainId = builtIn[0].chainId;
  const fetchFn: FetchLike =
    options.fetch ?? ((input, init) => (globalThis.fetch as unknown as FetchLike)(input, init));
  const disabled = new Set(options.policy?.disabledMethods ?? []);
  const approvals = new Approvals(options.approve);
  const providers = new Map<string, { provider: WalletProvider; emitter: Emitter }>();
  let closed = false;
  let storageQueue: Promise<unknown> = Promise.resolve();

  const ready: Promise<State> = (async () => {
    const storage = await openStorage(options.storage);
    const accounts = (options.privateKeys ?? []).map((key) => privateKeyToAccount(key));
    const keystores = options.keystore === undefined ? [] : [options.keystore].flat();
    for (const ks of keystores) {
      const { privateKey } = await decryptKeystore(ks.json, ks.password);
      accounts.push(privateKeyToAccount(privateKey));
    }
    const stored = ((await storage.get(STORAGE_KEYS.chains)) as ChainRecord[] | undefined) ?? [];
    const permissions = ((await storage.get(STORAGE_KEYS.permissions)) as PermissionTable | undefined) ?? {};
    const selectedChains =
      ((await storage.get(STORAGE_KEYS.selectedChains)) as Record<string, `0x${string}`> | undefined) ?? {};
    return {
      storage,
      accounts: dedupeAccounts(accounts),
      registry: new ChainRegistry(builtIn, stored),
      permissions,
      selectedChains,
    };
  })();
  // A failed start surfaces on every request; keep it from being an unhandled rejection.
  ready.catch(() => undefined);

  // ---- per-origin views ----------------------------------------------------------------

  const allAddresses = (s: State) => s.accounts.map((a) => a.address);

  function permittedAccounts(s: State, origin: string): `0x${string}`[] {
    const granted = s.permissions[origin]?.eth_accounts;
    if (!granted) return [];
    const mine = new Map(allAddresses(s).map((a) => [a.toLowerCase(), a]));
    return granted.accounts.map((a) => mine.get(a.toLowerCase())).filter((a): a is `0x${string}` => !!a);
  }

  function currentChain(s: State, origin: string): ChainRecord {
    const selected = s.selectedChains[origin];
    return (selected && s.registry.get(selected)) || s.registry.get(defaultChainId)!;
  }

  function emit(origin: string, event: WalletEvent, ...args: unknown[]) {
    providers.get(origin)?.emitter.emit(event, ...args);
  }

  async function switchTo(s: State, origin: string, chainId: `0x${string}`): Promise<void> {
    const before = currentChain(s, origin).chainId;
    if (s.selectedChains[origin] !== chainId) {
      s.selectedChains[origin] = chainId;
      await updateStored<Record<string, string>>(s, STORAGE_KEYS.selectedChains, {}, (all) => {
        all[origin] = chainId;
      });
    }
    if (before !== chainId) emit(origin, 'chainChanged', chainId);
  }

  /**
   * Read-modify-write of one stored entry, so that several wallets sharing one storage (one per
   * origin, or a restart while another runs) change only what they changed.
   */
  async function updateStored<T>(s: State, key: string, empty: T, change: (value: T) => void): Promise<void> {
    const apply = (stored: unknown) => {
      const value = (stored as T | undefined) ?? structuredClone(empty);
      change(value);
      return value;
    };
    if (s.storage.update) {
      await s.storage.update(key, apply);
      return;
    }
    const run = async () => s.storage.set(key, apply(await s.storage.get(key)));
    const next = storageQueue.then(run, run);
    storageQueue = next.catch(() => undefined);
    await next;
  }

  async function saveChain(s: State, chainId: string) {
    const record = s.registry.get(chainId)!;
    await updateStored<ChainRecord[]>(s, STORAGE_KEYS.chains, [], (all) => {
      const index = all.findIndex((c) => c.chainId === chainId);
      if (index >= 0) all[index] = record;
      else all.push(record);
    });
  }

  async function savePermissions(s: State, origin: string) {
    await updateStored<PermissionTable>(s, STORAGE_KEYS.permissions, {}, (all) => {
      if (s.permissions[origin]) all[origin] = s.permissions[origin];
      else delete all[origin];
    });
  }

  async function grantAccounts(
    s: State,
    origin: string,
    accounts: `0x${string}`[],
  ): Promise<StoredPermission> {
    const before = permittedAccounts(s, origin);
    const permission: StoredPermission = {
      id: s.permissions[origin]?.eth_accounts?.id ?? newPermissionId(),
      date: Date.now(),
      accounts,
    };
    s.permissions[origin] = { ...s.permissions[origin], eth_accounts: permission };
    await savePermissions(s, origin);
    const after = permittedAccounts(s, origin);
    if (before.join() !== after.join()) emit(origin, 'accountsChanged', after);
    return permission;
  }

  function permissionsOf(s: State, origin: string): Permission[] {
    const stored = s.permissions[origin]?.eth_accounts;
    return stored ? [toPermission(origin, stored, permittedAccounts(s, origin))] : [];
  }

  async function chainRpc(s: State, origin: string, method: string, params: unknown[]): Promise<unknown> {
    const chain = currentChain(s, origin);
    try {
      return await rpcCall(fetchFn, chain.rpcUrls[0], method, params);
    } catch (error) {
      if (error instanceof RpcTransportError)
        throw walletErrors.chainDisconnected(chain.chainId, error.message);
      throw error;
    }
  }

  /** The account `address` if the origin may use it; 4100 otherwise. */
  function usableAccount(s: State, origin: string, address: unknown): PrivateKeyAccount {
    const permitted = permittedAccounts(s, origin);
    const wanted = address === undefined || address === null ? permitted[0] : address;
    if (typeof wanted !== 'string') throw walletErrors.unauthorized();
    const ok = permitted.some((a) => a.toLowerCase() === wanted.toLowerCase());
    const account = s.accounts.find((a) => a.address.toLowerCase() === wanted.toLowerCase());
    if (!ok || !account) throw walletErrors.unauthorized({ address: wanted });
    return account;
  }

  // ---- method handlers -----------------------------------------------------------------

  type Handler = (s: State, origin: string, params: unknown, method: string) => Promise<unknown>;

  const handlers: Record<string, Handler> = {
    eth_chainId: async (s, origin) => currentChain(s, origin).chainId,
    net_version: async (s, origin) => BigInt(currentChain(s, origin).chainId).toString(10),
    eth_accounts: async (s, origin) => permittedAccounts(s, origin),
    eth_coinbase: async (s, origin) => permittedAccounts(s, origin)[0] ?? null,

    eth_requestAccounts: async (s, origin, params, method) => {
      const existing = permittedAccounts(s, origin);
      if (existing.length > 0) return existing;
      const accounts = allAddresses(s);
      await approvals.ask({ type: 'requestAccounts', origin, method, params, accounts });
      await grantAccounts(s, origin, accounts);
      return permittedAccounts(s, origin);
    },

    wallet_getPermissions: async (s, origin) => permissionsOf(s, origin),

    wallet_requestPermissions: async (s, origin, params, method) => {
      const request = Array.isArray(params) ? params[0] : undefined;
      if (
        !request ||
        typeof request !== 'object' ||
        Array.isArray(request) ||
        Object.keys(request).length === 0
      ) {
        throw walletErrors.invalidParams(
          `Expected single, object parameter. Received:\n${JSON.stringify(params)}`,
        );
      }
      for (const name of Object.keys(request)) {
        if (name !== 'eth_accounts') {
          throw new ProviderRpcError(
            walletErrorCodes.methodNotFound,
            `The method "${name}" does not exist / is not available.`,
            { method: name },
          );
        }
      }
      const accounts = allAddresses(s);
      await approvals.ask({ type: 'requestAccounts', origin, method, params, accounts });
      await grantAccounts(s, origin, accounts);
      return permissionsOf(s, origin);
    },

    wallet_revokePermissions: async (s, origin, params) => {
      const request = Array.isArray(params) ? params[0] : undefined;
      if (!request || typeof request !== 'object' || Object.keys(request).length === 0) {
        throw walletErrors.invalidParams('Invalid params', { params });
      }
      if ('eth_accounts' in request && s.permissions[origin]?.eth_accounts) {
        const before = permittedAccounts(s, origin);
        const { eth_accounts: _, ...rest } = s.permissions[origin];
        if (Object.keys(rest).length) s.permissions[origin] = rest;
        else delete s.permissions[origin];
        await savePermissions(s, origin);
        if (before.length) emit(origin, 'accountsChanged', []);
      }
      return null;
    },

    wallet_switchEthereumChain: async (s, origin, params, method) => {
      const chainId = validateSwitchEthereumChainParams(params);
      const chain = s.registry.get(chainId);
      if (!chain) throw walletErrors.unrecognizedChain(chainId);
      const fromChainId = currentChain(s, origin).chainId;
      if (options.policy?.confirmChainSwitch && fromChainId !== chainId) {
        await approvals.ask({ type: 'switchEthereumChain', origin, method, params, chain, fromChainId });
      }
      await switchTo(s, origin, chainId);
      return null;
    },

    wallet_addEthereumChain: async (s, origin, params, method) => {
      const chain = validateAddEthereumChainParameter(Array.isArray(params) ? params[0] : undefined);
      const existing = s.registry.get(chain.chainId);
      if (existing && existing.nativeCurrency.symbol !== chain.nativeCurrency.symbol) {
        throw walletErrors.invalidParams(
          `nativeCurrency.symbol does not match currency symbol for a network the user already has added with the same chainId. Received:\n${chain.nativeCurrency.symbol}`,
        );
      }
      if (existing?.rpcUrls.some((url) => sameUrl(url, chain.rpcUrl))) {
        // Known chain and endpoint: nothing to ask; use that endpoint and switch to the chain.
        const index = existing.rpcUrls.findIndex((url) => sameUrl(url, chain.rpcUrl));
        if (index > 0) {
          const rpcUrls = [existing.rpcUrls[index], ...existing.rpcUrls.filter((_, i) => i !== index)];
          s.registry.upsert({ ...existing, rpcUrls });
          await saveChain(s, existing.chainId);
        }
        await switchTo(s, origin, chain.chainId);
        return null;
      }

      let endpointChainId: unknown;
      try {
        endpointChainId = await rpcCall(fetchFn, chain.rpcUrl, 'eth_chainId', []);
      } catch (error) {
        throw walletErrors.internal(`Request for method 'eth_chainId on ${chain.rpcUrl} failed`, {
          networkErr: error instanceof Error ? error.message : String(error),
        });
      }
      if (!sameChainId(endpointChainId, chain.chainId)) throw walletErrors.unrecognizedChain(endpointChainId);

      const proposed: ChainRecord = existing
        ? {
            ...existing,
            rpcUrls: [chain.rpcUrl, ...existing.rpcUrls],
            ...mergeExplorer(existing.blockExplorerUrls, chain.blockExplorerUrl),
          }
        : {
            chainId: chain.chainId,
            chainName: chain.chainName,
            nativeCurrency: chain.nativeCurrency,
            rpcUrls: [chain.rpcUrl],
            ...(chain.blockExplorerUrl ? { blockExplorerUrls: [chain.blockExplorerUrl] } : {}),
            ...(chain.iconUrls ? { iconUrls: chain.iconUrls } : {}),
          };
      await approvals.ask({
        type: 'addEthereumChain',
        origin,
        method,
        params,
        chain: structuredClone(proposed),
        ...(existing ? { existingChain: structuredClone(existing) } : {}),
      });
      s.registry.upsert(proposed);
      await saveChain(s, proposed.chainId);
      await switchTo(s, origin, proposed.chainId);
      return null;
    },

    personal_sign: async (s, origin, params, method) => {
      if (!Array.isArray(params) || params.length < 2) {
        throw walletErrors.invalidParams(`Expected [message, address]. Received:\n${JSON.stringify(params)}`);
      }
      let [message, address] = params as unknown[];
      // Some sites send [address, message]; accept it as MetaMask does.
      if (isAddress(message) && !isAddress(address)) [message, address] = [address, message];
      if (typeof message !== 'string') {
        throw walletErrors.invalidParams(`Expected a string message. Received:\n${message}`);
      }
      const account = usableAccount(s, origin, address);
      // Before the dialog: a person must never be asked to sign in to another site for this one.
      checkSiweDomain(origin, message);
      await approvals.ask({ type: 'signMessage', origin, method, params, address: account.address, message });
      return signPersonalMessage(account, message);
    },

    eth_signTypedData_v4: async (s, origin, params, method) => {
      if (!Array.isArray(params) || params.length < 2) {
        throw walletErrors.invalidParams(
          `Expected [address, typedData]. Received:\n${JSON.stringify(params)}`,
        );
      }
      const account = usableAccount(s, origin, params[0]);
      let typedData: any = params[1];
      if (typeof typedData === 'string') {
        try {
          typedData = JSON.parse(typedData);
        } catch {
          throw walletErrors.invalidParams('Invalid typed data: not JSON');
        }
      }
      if (!typedData || typeof typedData !== 'object' || !typedData.types || !typedData.primaryType) {
        throw walletErrors.invalidParams(
          'Invalid typed data: expected types, primaryType, domain and message',
        );
      }
      const domainChainId = typedData.domain?.chainId;
      if (domainChainId !== undefined && domainChainId !== null && domainChainId !== '') {
        const active = currentChain(s, origin).chainId;
        if (!sameChainId(domainChainId, active)) {
          throw walletErrors.invalidParams(
            `Provided chainId "${domainChainId}" must match the active chainId "${Number(BigInt(active))}"`,
          );
        }
      }
      await approvals.ask({
        type: 'signTypedData',
        origin,
        method,
        params,
        address: account.address,
        typedData,
      });
      return signTypedDataV4(account, typedData);
    },

    eth_sendTransaction: async (s, origin, params, method) => sendOrSign(s, origin, params, method, true),
    eth_signTransaction: async (s, origin, params, method) => sendOrSign(s, origin, params, method, false),
  };

  async function sendOrSign(s: State, origin: string, params: unknown, method: string, send: boolean) {
    const request = Array.isArray(params) ? params[0] : undefined;
    if (!request || typeof request !== 'object') {
      throw walletErrors.invalidParams(
        `Expected single, object parameter. Received:\n${JSON.stringify(params)}`,
      );
    }
    const tx = request as Record<string, unknown>;
    const account = usableAccount(s, origin, tx.from);
    const chain = currentChain(s, origin);
    if (tx.chainId !== undefined && tx.chainId !== null && !sameChainId(tx.chainId, chain.chainId)) {
      throw walletErrors.invalidParams(
        `Invalid chainId "${tx.chainId}": must match the active chainId "${chain.chainId}"`,
      );
    }
    const rpc = (m: string, p: unknown[]) => chainRpc(s, origin, m, p);
    const prepared = await prepareTransaction(tx, account.address, Number(BigInt(chain.chainId)), rpc);
    await approvals.ask({
      type: send ? 'sendTransaction' : 'signTransaction',
      origin,
      method,
      params,
      address: account.address,
      chainId: chain.chainId,
      transaction: transactionToHex(prepared),
    });
    const { from: _from, ...unsigned } = prepared;
    const raw = await account.signTransaction(
      unsigned as Parameters<PrivateKeyAccount['signTransaction']>[0],
    );
    if (!send) return raw;
    return rpc('eth_sendRawTransaction', [raw]);
  }

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
    const s = await ready;
    if (disabled.has(method)) throw walletErrors.unauthorized({ method });
    if (accountMethods.has(method) && permittedAccounts(s, origin).length === 0) {
      throw walletErrors.unauthorized({ method });
    }
    const handler = handlers[method];
    if (handler) return handler(s, origin, params, method);
    if (forwardedMethods.has(method)) return chainRpc(s, origin, method, Array.isArray(params) ? params : []);
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
      (s) => {
        if (!closed) emitter.emit('connect', { chainId: currentChain(s, origin).chainId });
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
    accounts: async () => allAddresses(await ready),
    chains: async () => (await ready).registry.list(),
    connectedOrigins: async () => {
      const s = await ready;
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

function dedupeAccounts(accounts: PrivateKeyAccount[]): PrivateKeyAccount[] {
  const seen = new Set<string>();
  return accounts.filter((a) => !seen.has(a.address) && seen.add(a.address));
}

function isAddress(value: unknown): value is `0x${string}` {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value);
}

function sameChainId(value: unknown, chainId: `0x${string}`): boolean {
  try {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') return false;
    return BigInt(value) === BigInt(chainId);
  } catch {
    return false;
  }
}

function mergeExplorer(
  existing: string[] | undefined,
  url: string | undefined,
): { blockExplorerUrls?: string[] } {
  if (!url) return existing ? { blockExplorerUrls: existing } : {};
  const rest = (existing ?? []).filter((u) => !sameUrl(u, url));
  return { blockExplorerUrls: [url, ...rest] };
}
