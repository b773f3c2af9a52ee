import { describe, expect, it } from 'vitest';

// The public API, pinned: a change here is a change for every user of the package.
describe('public exports', () => {
  it('@wharf/wallet', async () => {
    const names = Object.keys(await import('@wharf/wallet')).sort();
    expect(names).toEqual([
      'DEFAULT_ORIGIN',
      'KeystoreError',
      'MAX_SAFE_CHAIN_ID',
      'ProviderRpcError',
      'createWallet',
      'createWalletProvider',
      'decryptKeystore',
      'defaultErrorMessages',
      'encryptKeystore',
      'localStorageStorage',
      'memoryStorage',
      'siweDomainOf',
      'toProviderRpcError',
      'validateAddEthereumChainParameter',
      'validateChainId',
      'validateSwitchEthereumChainParams',
      'walletErrorCodes',
      'wharfLocalChain',
    ]);
  });

  it('@wharf/wallet/bridge', async () => {
    const names = Object.keys(await import('@wharf/wallet/bridge')).sort();
    expect(names).toEqual([
      'BRIDGE_CHANNEL',
      'ProviderRpcError',
      'WHARF_ICON',
      'announceProvider',
      'createBridgeProvider',
      'createBridgeServer',
      'defaultProviderInfo',
      'endpointPair',
      'iframeEndpoint',
      'installIframeWallet',
      'isBridgeMessage',
      'parentEndpoint',
    ]);
  });
});
