/**
 * eth_sendTransaction and eth_signTransaction: the origin's account, the active chain, the
 * missing fields filled from the chain (prepareTransaction.ts), the person's approval, the
 * signature; sending hands the signed bytes to the chain (eth_sendRawTransaction).
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { sameChainId } from '../chains/chainRegistry.js';
import { walletErrors } from '../errors.js';
import { prepareTransaction, transactionToHex } from '../transactions/prepareTransaction.js';
import type { WalletCore } from '../walletCore.js';
import type { Handler } from './handler.js';

export const transactionMethods: Record<string, Handler> = {
  eth_sendTransaction: async (w, origin, params, method) => sendOrSign(w, origin, params, method, true),
  eth_signTransaction: async (w, origin, params, method) => sendOrSign(w, origin, params, method, false),
};

async function sendOrSign(w: WalletCore, origin: string, params: unknown, method: string, send: boolean) {
  const request = Array.isArray(params) ? params[0] : undefined;
  if (!request || typeof request !== 'object') {
    throw walletErrors.invalidParams(
      `Expected single, object parameter. Received:\n${JSON.stringify(params)}`,
    );
  }
  const tx = request as Record<string, unknown>;
  const account = w.usableAccount(origin, tx.from);
  const chain = w.currentChain(origin);
  if (tx.chainId !== undefined && tx.chainId !== null && !sameChainId(tx.chainId, chain.chainId)) {
    throw walletErrors.invalidParams(
      `Invalid chainId "${tx.chainId}": must match the active chainId "${chain.chainId}"`,
    );
  }
  const rpc = (m: string, p: unknown[]) => w.chainRpc(origin, m, p);
  const prepared = await prepareTransaction(tx, account.address, Number(BigInt(chain.chainId)), rpc);
  await w.approvals.ask({
    type: send ? 'sendTransaction' : 'signTransaction',
    origin,
    method,
    params,
    address: account.address,
    chainId: chain.chainId,
    transaction: transactionToHex(prepared),
  });
  const { from: _from, ...unsigned } = prepared;
  const raw = await account.signTransaction(unsigned as Parameters<PrivateKeyAccount['signTransaction']>[0]);
  if (!send) return raw;
  return rpc('eth_sendRawTransaction', [raw]);
}
