/**
 * The wallet's loaded state and what every method handler needs of it: the accounts an origin
 * may use, its selected chain, its permissions, the chain's RPC, and storage writes that change
 * only what they change. One per wallet, made once storage is loaded (`loadWallet`).
 *
 *   createWallet ─> loadWallet (storage, keystores) ─> WalletCore ─> methods/* handlers
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { privateKeyToAccount } from 'viem/accounts';
import { decryptKeystore } from './accounts/keystore.js';
import type { Approvals } from './approvals.js';
import { ChainRegistry, type ChainRecord, toHexChainId, wharfLocalChain } from './chains/chainRegistry.js';
import { type FetchLike, RpcTransportError, rpcCall } from './chains/rpcClient.js';
import { walletErrors } from './errors.js';
import {
  newPermissionId,
  type Permission,
  type PermissionTable,
  type StoredPermission,
  toPermission,
} from './permissions.js';
import { memoryStorage, type WalletStorage } from './storage/storage.js';
import type { ChainInput, WalletEvent, WalletOptions, WalletPolicy } from './walletTypes.js';

const STORAGE_KEYS = {
  chains: 'chains',
  permissions: 'permissions',
  selectedChains: 'selectedChains',
} as const;

/** What the wallet holds once loaded. */
export interface WalletState {
  storage: WalletStorage;
  accounts: PrivateKeyAccount[];
  registry: ChainRegistry;
  permissions: PermissionTable;
  selectedChains: Record<string, `0x${string}`>;
}

export interface CoreDeps {
  fetch: FetchLike;
  approvals: Approvals;
  /** Where a new origin starts. */
  defaultChainId: `0x${string}`;
  policy?: WalletPolicy;
  /** Emits `event` on the provider of `origin`, if there is one. */
  emit: (origin: string, event: WalletEvent, ...args: unknown[]) => void;
}

export class WalletCore {
  /** Writes to a storage without `update`, one after another. */
  private storageQueue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly s: WalletState,
    readonly deps: CoreDeps,
  ) {}

  get approvals(): Approvals {
    return this.deps.approvals;
  }

  allAddresses(): `0x${string}`[] {
    return this.s.accounts.map((a) => a.address);
  }

  permittedAccounts(origin: string): `0x${string}`[] {
    const granted = this.s.permissions[origin]?.eth_accounts;
    if (!granted) return [];
    const mine = new Map(this.allAddresses().map((a) => [a.toLowerCase(), a]));
    return granted.accounts.map((a) => mine.get(a.toLowerCase())).filter((a): a is `0x${string}` => !!a);
  }

  currentChain(origin: string): ChainRecord {
    const selected = this.s.selectedChains[origin];
    return (selected && this.s.registry.get(selected)) || this.s.registry.get(this.deps.defaultChainId)!;
  }

  emit(origin: string, event: WalletEvent, ...args: unknown[]): void {
    this.deps.emit(origin, event, ...args);
  }

  async switchTo(origin: string, chainId: `0x${string}`): Promise<void> {
    const before = this.currentChain(origin).chainId;
    if (this.s.selectedChains[origin] !== chainId) {
      this.s.selectedChains[origin] = chainId;
      await this.updateStored<Record<string, string>>(STORAGE_KEYS.selectedChains, {}, (all) => {
        all[origin] = chainId;
      });
    }
    if (before !== chainId) this.emit(origin, 'chainChanged', chainId);
  }

  /**
   * Read-modify-write of one stored entry, so that several wallets sharing one storage (one per
   * origin, or a restart while another runs) change only what they changed.
   */
  private async updateStored<T>(key: string, empty: T, change: (value: T) => void): Promise<void> {
    const { storage } = this.s;
    const apply = (stored: unknown) => {
      const value = (stored as T | undefined) ?? structuredClone(empty);
      change(value);
      return value;
    };
    if (storage.update) {
      await storage.update(key, apply);
      return;
    }
    const run = async () => storage.set(key, apply(await storage.get(key)));
    const next = this.storageQueue.then(run, run);
    this.storageQueue = next.catch(() => undefined);
    await next;
  }

  async saveChain(chainId: string): Promise<void> {
    const record = this.s.registry.get(chainId)!;
    await this.updateStored<ChainRecord[]>(STORAGE_KEYS.chains, [], (all) => {
      const index = all.findIndex((c) => c.chainId === chainId);
      if (index >= 0) all[index] = record;
      else all.push(record);
    });
  }

  async savePermissions(origin: string): Promise<void> {
    const { permissions } = this.s;
    await this.updateStored<PermissionTable>(STORAGE_KEYS.permissions, {}, (all) => {
      if (permissions[origin]) all[origin] = permissions[origin];
      else delete all[origin];
    });
  }

  async grantAccounts(origin: string, accounts: `0x${string}`[]): Promise<StoredPermission> {
    const before = this.permittedAccounts(origin);
    const permission: StoredPermission = {
      id: this.s.permissions[origin]?.eth_accounts?.id ?? newPermissionId(),
      date: Date.now(),
      accounts,
    };
    this.s.permissions[origin] = { ...this.s.permissions[origin], eth_accounts: permission };
    await this.savePermissions(origin);
    const after = this.permittedAccounts(origin);
    if (before.join() !== after.join()) this.emit(origin, 'accountsChanged', after);
    return permission;
  }

  permissionsOf(origin: string): Permission[] {
    const stored = this.s.permissions[origin]?.eth_accounts;
    return stored ? [toPermission(origin, stored, this.permittedAccounts(origin))] : [];
  }

  /** `method` on the origin's chain; an unreachable endpoint is 4901. */
  async chainRpc(origin: string, method: string, params: unknown[]): Promise<unknown> {
    const chain = this.currentChain(origin);
    try {
      return await rpcCall(this.deps.fetch, chain.rpcUrls[0], method, params);
    } catch (error) {
      if (error instanceof RpcTransportError)
        throw walletErrors.chainDisconnected(chain.chainId, error.message);
      throw error;
    }
  }

  /** The account `address` if the origin may use it; 4100 otherwise. */
  usableAccount(origin: string, address: unknown): PrivateKeyAccount {
    const permitted = this.permittedAccounts(origin);
    const wanted = address === undefined || address === null ? permitted[0] : address;
    if (typeof wanted !== 'string') throw walletErrors.unauthorized();
    const ok = permitted.some((a) => a.toLowerCase() === wanted.toLowerCase());
    const account = this.s.accounts.find((a) => a.address.toLowerCase() === wanted.toLowerCase());
    if (!ok || !account) throw walletErrors.unauthorized({ address: wanted });
    return account;
  }
}

/** The chains of `options.chains` (default: wharf local), chain ids in hex. */
export function builtInChains(options: WalletOptions): ChainRecord[] {
  return (options.chains?.length ? options.chains : [wharfLocalChain]).map(normalizeChainInput);
}

/** Opens storage, unlocks keystores and reads the stored chains, permissions and selections. */
export async function loadWallet(options: WalletOptions, builtIn: ChainRecord[]): Promise<WalletState> {
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

function dedupeAccounts(accounts: PrivateKeyAccount[]): PrivateKeyAccount[] {
  const seen = new Set<string>();
  return accounts.filter((a) => !seen.has(a.address) && seen.add(a.address));
}
