/**
 * The wallet inside the platform app: one `@wharf/wallet` instance holding the signed-in
 * account, persisted in localStorage, with approvals shown as in-app dialogs. The app's own
 * origin gets one provider; each mini app gets a provider named by its frame's origin, so
 * permissions and the selected chain are per site.
 */
import { type ApprovalRequest, createWallet, localStorageStorage, type Wallet } from '@wharf/wallet';
import { askPerson } from './approvalQueue.js';
import type { ChainConfig } from './chainConfig.js';

let current: { key: string; wallet: Wallet } | undefined;

/** Requests the app itself makes on the person's direct action: asking again would be noise. */
function selfApproved(request: ApprovalRequest): boolean {
  return (
    request.origin === location.origin &&
    (request.type === 'requestAccounts' ||
      request.type === 'sendTransaction' ||
      request.type === 'switchEthereumChain')
  );
}

export function walletFor(privateKey: `0x${string}`, chain: ChainConfig): Wallet {
  const key = `${privateKey}|${chain.rpcUrl}|${chain.chainId}`;
  if (current?.key === key) return current.wallet;
  current?.wallet.close();
  const wallet = createWallet({
    privateKeys: [privateKey],
    storage: localStorageStorage('wharf-wallet:'),
    approve: (request) => (selfApproved(request) ? true : askPerson(request)),
    chains: [
      {
        chainId: chain.chainId,
        chainName: chain.chainId === 31337 ? 'wharf local' : `Chain ${chain.chainId}`,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: [chain.rpcUrl],
      },
    ],
  });
  current = { key, wallet };
  return wallet;
}

export function closeWallet(): void {
  current?.wallet.close();
  current = undefined;
}
