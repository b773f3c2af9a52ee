export interface WalletProviderOptions {
  privateKeys?: `0x${string}`[];
  origin?: string;
}
export interface WalletProvider {
  request(args: { method: string; params?: unknown }): Promise<unknown>;
  on(event: string, listener: (...args: unknown[]) => void): void;
  removeListener(event: string, listener: (...args: unknown[]) => void): void;
}

/** Creates an EIP-1193 provider. Filled in by the wallet issue. */
export function createWalletProvider(_options: WalletProviderOptions = {}): WalletProvider {
  throw new Error('the wallet has not landed yet');
}
