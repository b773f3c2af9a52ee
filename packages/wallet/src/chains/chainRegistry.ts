/**
 * The chains the wallet knows: those given in `options.chains` and those added through
 * wallet_addEthereumChain (persisted). Each chain has one or more RPC URLs; the first is the
 * one the wallet calls.
 */

/** A chain as the wallet keeps it. */
export interface ChainRecord {
  chainId: `0x${string}`;
  chainName: string;
  nativeCurrency: { name: string; symbol: string; decimals: number };
  /** RPC URLs; `rpcUrls[0]` is the default endpoint. */
  rpcUrls: string[];
  blockExplorerUrls?: string[];
  iconUrls?: string[];
}

/** The chain of `wharf up` (chain id 31337 on 127.0.0.1:8545), the default when no chains are given. */
export const wharfLocalChain: ChainRecord = {
  chainId: '0x7a69',
  chainName: 'wharf local',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: ['http://127.0.0.1:8545'],
};

/** Compares RPC URLs after URL normalization (case of scheme and host, default port, trailing slash). */
export function sameUrl(a: string, b: string): boolean {
  return normalizeUrl(a) === normalizeUrl(b);
}

export function normalizeUrl(value: string): string {
  try {
    const url = new URL(value);
    const text = url.href;
    return url.pathname === '/' && !url.search && !url.hash ? text.replace(/\/$/, '') : text;
  } catch {
    return value;
  }
}

/** A chain id in any accepted form (hex string, decimal number) as the wallet's `0x` lower-case form. */
export function toHexChainId(chainId: string | number | bigint): `0x${string}` {
  return `0x${BigInt(chainId).toString(16)}`;
}

export class ChainRegistry {
  private readonly chains = new Map<string, ChainRecord>();

  constructor(builtIn: ChainRecord[], added: ChainRecord[]) {
    for (const chain of [...builtIn, ...added]) this.chains.set(chain.chainId, structuredClone(chain));
  }

  get(chainId: string): ChainRecord | undefined {
    return this.chains.get(chainId.toLowerCase());
  }

  list(): ChainRecord[] {
    return [...this.chains.values()].map((c) => structuredClone(c));
  }

  /** Adds a chain, or puts a new default RPC URL on a known one. */
  upsert(chain: ChainRecord): void {
    this.chains.set(chain.chainId, structuredClone(chain));
  }
}

/** Whether `value` (hex, decimal or a number) names the chain `chainId`; false for anything else. */
export function sameChainId(value: unknown, chainId: `0x${string}`): boolean {
  try {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'bigint') return false;
    return BigInt(value) === BigInt(chainId);
  } catch {
    return false;
  }
}
