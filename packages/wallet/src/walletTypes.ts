/** The wallet's public types: its options, the shared wallet and the per-origin provider. */
import type { KeystoreV3 } from './accounts/keystore.js';
import type { ApproveFn } from './approvals.js';
import type { ChainRecord } from './chains/chainRegistry.js';
import type { FetchLike } from './chains/rpcClient.js';
import type { Listener } from './events.js';
import type { WalletStorage } from './storage/storage.js';

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
