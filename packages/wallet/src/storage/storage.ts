/**
 * Where the wallet keeps what must survive a restart: added chains, permissions, and the
 * chain each origin is on. Values are JSON. Browser-safe: no Node modules here.
 */

/** A key-value store. Consumer: the wallet core (`createWallet`). */
export interface WalletStorage {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
  /**
   * Optional atomic read-modify-write; when present the wallet uses it, so that several wallets
   * sharing one store never lose each other's changes.
   */
  update?(key: string, change: (value: unknown) => unknown): Promise<void>;
}

/** A storage that lives as long as the process (the default when no `storage` is given). */
export function memoryStorage(initial: Record<string, unknown> = {}): WalletStorage {
  const data = new Map<string, string>(Object.entries(initial).map(([k, v]) => [k, JSON.stringify(v)]));
  return {
    async get(key) {
      const text = data.get(key);
      return text === undefined ? undefined : JSON.parse(text);
    },
    async set(key, value) {
      data.set(key, JSON.stringify(value));
    },
    async update(key, change) {
      const text = data.get(key);
      data.set(key, JSON.stringify(change(text === undefined ? undefined : JSON.parse(text))));
    },
  };
}

/** The part of the Web Storage API that `localStorageStorage` needs. */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/**
 * A storage over the browser's `localStorage` (or any Web Storage), keys prefixed with `prefix`.
 */
export function localStorageStorage(
  prefix = 'wharf-wallet:',
  store: WebStorageLike | undefined = (globalThis as { localStorage?: WebStorageLike }).localStorage,
): WalletStorage {
  if (!store) throw new Error('localStorage is not available here; pass a Web Storage object');
  return {
    async get(key) {
      const text = store.getItem(prefix + key);
      return text === null ? undefined : JSON.parse(text);
    },
    async set(key, value) {
      store.setItem(prefix + key, JSON.stringify(value));
    },
    async update(key, change) {
      const text = store.getItem(prefix + key);
      store.setItem(prefix + key, JSON.stringify(change(text === null ? undefined : JSON.parse(text))));
    },
  };
}
