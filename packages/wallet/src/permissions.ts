/**
 * Permissions (EIP-2255): which origins may see which accounts. The only permission is
 * `eth_accounts`, with a `restrictReturnedAccounts` caveat listing the accounts.
 */

/** A granted permission as EIP-2255 answers it. */
export interface Permission {
  id: string;
  invoker: string;
  parentCapability: 'eth_accounts';
  caveats: { type: 'restrictReturnedAccounts'; value: `0x${string}`[] }[];
  date: number;
}

/** What the wallet stores per origin. */
export interface StoredPermission {
  id: string;
  date: number;
  accounts: `0x${string}`[];
}

export type PermissionTable = Record<string, { eth_accounts?: StoredPermission }>;

export function toPermission(
  origin: string,
  stored: StoredPermission,
  accounts: `0x${string}`[],
): Permission {
  return {
    id: stored.id,
    invoker: origin,
    parentCapability: 'eth_accounts',
    caveats: [{ type: 'restrictReturnedAccounts', value: accounts }],
    date: stored.date,
  };
}

export function newPermissionId(): string {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
