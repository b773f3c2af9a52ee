/** The signed-in person's wallet and the chain config, once both are ready. */
import type { Wallet } from '@wharf/wallet';
import type { Signer } from '../auth/session.js';
import { privateKeyOfSigner } from '../auth/signer.js';
import { type AsyncState, useAsync } from '../hooks/useAsync.js';
import { type ChainConfig, chainConfig } from './chainConfig.js';
import { walletFor } from './walletHost.js';

export function useWallet(
  signer: Signer,
  configVersion = 0,
): AsyncState<{ wallet: Wallet; config: ChainConfig }> {
  return useAsync(async () => {
    const [privateKey, config] = await Promise.all([privateKeyOfSigner(signer), chainConfig()]);
    const wallet = walletFor(privateKey, config);
    await wallet.ready;
    return { wallet, config };
  }, [JSON.stringify(signer), configVersion]);
}
