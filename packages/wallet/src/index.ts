/**
 * @wharf/wallet — an EIP-1193 wallet provider: accounts, chains (wallet_addEthereumChain),
 * permissions, approvals and an encrypted keystore. Runs in Node and in the browser.
 */
export { createWalletProvider } from './provider.js';
export type { WalletProviderOptions, WalletProvider } from './provider.js';
