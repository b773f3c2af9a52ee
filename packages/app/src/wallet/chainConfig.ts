/**
 * Which chain the app talks to. Order: a URL the person set on the wallet screen (localStorage),
 * then what the platform server says (GET /api/v1/client/config, when it offers it), then the
 * default of `wharf up` (127.0.0.1:8545, chain id 31337).
 */
import { createPlatformClient } from '@wharf/sdk';

export interface ChainConfig {
  rpcUrl: string;
  chainId: number;
  /** Where the RPC URL came from, shown on the wallet screen. */
  source: 'override' | 'server' | 'default';
}

export const DEFAULT_RPC_URL = 'http://127.0.0.1:8545';
export const DEFAULT_CHAIN_ID = 31337;
const OVERRIDE_KEY = 'wharf:rpcUrl';

let loaded: Promise<ChainConfig> | undefined;

export function chainConfig(): Promise<ChainConfig> {
  loaded ??= (async () => {
    const server = await createPlatformClient({ baseUrl: '' })
      .config()
      .catch(() => undefined);
    const override = localStorage.getItem(OVERRIDE_KEY);
    const chainId = server?.chainId ?? DEFAULT_CHAIN_ID;
    if (override) return { rpcUrl: override, chainId, source: 'override' };
    if (server?.chainRpcUrl) return { rpcUrl: server.chainRpcUrl, chainId, source: 'server' };
    return { rpcUrl: DEFAULT_RPC_URL, chainId, source: 'default' };
  })();
  return loaded;
}

/** Sets (or clears, with null) the RPC URL override; the page reloads its chain views. */
export function setRpcOverride(url: string | null): void {
  if (url) localStorage.setItem(OVERRIDE_KEY, url);
  else localStorage.removeItem(OVERRIDE_KEY);
  loaded = undefined;
}
