/**
 * @wharf/wallet — an EIP-1193 wallet: accounts (private keys, keystore v3), chains
 * (wallet_addEthereumChain, wallet_switchEthereumChain), EIP-2255 permissions, approvals and
 * persistence. Runs in Node and in the browser; the browser-side bridge is '@wharf/wallet/bridge'.
 */
export { createWallet, createWalletProvider, DEFAULT_ORIGIN } from './wallet.js';
export { siweDomainOf } from './siweDomain.js';
export type {
  ChainInput,
  KeystoreInput,
  Wallet,
  WalletEvent,
  WalletOptions,
  WalletPolicy,
  WalletProvider,
  WalletProviderOptions,
} from './wallet.js';
export type { ApprovalRequest, ApproveFn } from './approvals.js';
export { type ChainRecord, wharfLocalChain } from './chains/chainRegistry.js';
export {
  type AddEthereumChainParameter,
  MAX_SAFE_CHAIN_ID,
  validateAddEthereumChainParameter,
  validateChainId,
  validateSwitchEthereumChainParams,
} from './chains/validateAddEthereumChain.js';
export type { FetchLike } from './chains/rpcClient.js';
export type { Permission } from './permissions.js';
export {
  defaultErrorMessages,
  ProviderRpcError,
  toProviderRpcError,
  type WalletErrorCode,
  walletErrorCodes,
} from './errors.js';
export {
  type DecryptedKeystore,
  decryptKeystore,
  type EncryptKeystoreOptions,
  encryptKeystore,
  KeystoreError,
  type KeystoreV3,
} from './accounts/keystore.js';
export {
  localStorageStorage,
  memoryStorage,
  type WalletStorage,
  type WebStorageLike,
} from './storage/storage.js';
