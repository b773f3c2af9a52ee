/** Signing with the origin's account: personal_sign (EIP-191, SIWE domain checked) and eth_signTypedData_v4. */
import { sameChainId } from '../chains/chainRegistry.js';
import { walletErrors } from '../errors.js';
import { signPersonalMessage, signTypedDataV4 } from '../signing.js';
import { checkSiweDomain } from '../siweDomain.js';
import type { Handler } from './handler.js';

export const signMethods: Record<string, Handler> = {
  personal_sign: async (w, origin, params, method) => {
    if (!Array.isArray(params) || params.length < 2) {
      throw walletErrors.invalidParams(`Expected [message, address]. Received:\n${JSON.stringify(params)}`);
    }
    let [message, address] = params as unknown[];
    // Some sites send [address, message]; accept it as MetaMask does.
    if (isAddress(message) && !isAddress(address)) [message, address] = [address, message];
    if (typeof message !== 'string') {
      throw walletErrors.invalidParams(`Expected a string message. Received:\n${message}`);
    }
    const account = w.usableAccount(origin, address);
    // Before the dialog: a person must never be asked to sign in to another site for this one.
    checkSiweDomain(origin, message);
    await w.approvals.ask({ type: 'signMessage', origin, method, params, address: account.address, message });
    return signPersonalMessage(account, message);
  },

  eth_signTypedData_v4: async (w, origin, params, method) => {
    if (!Array.isArray(params) || params.length < 2) {
      throw walletErrors.invalidParams(`Expected [address, typedData]. Received:\n${JSON.stringify(params)}`);
    }
    const account = w.usableAccount(origin, params[0]);
    let typedData: any = params[1];
    if (typeof typedData === 'string') {
      try {
        typedData = JSON.parse(typedData);
      } catch {
        throw walletErrors.invalidParams('Invalid typed data: not JSON');
      }
    }
    if (!typedData || typeof typedData !== 'object' || !typedData.types || !typedData.primaryType) {
      throw walletErrors.invalidParams('Invalid typed data: expected types, primaryType, domain and message');
    }
    const domainChainId = typedData.domain?.chainId;
    if (domainChainId !== undefined && domainChainId !== null && domainChainId !== '') {
      const active = w.currentChain(origin).chainId;
      if (!sameChainId(domainChainId, active)) {
        throw walletErrors.invalidParams(
          `Provided chainId "${domainChainId}" must match the active chainId "${Number(BigInt(active))}"`,
        );
      }
    }
    await w.approvals.ask({
      type: 'signTypedData',
      origin,
      method,
      params,
      address: account.address,
      typedData,
    });
    return signTypedDataV4(account, typedData);
  },
};

function isAddress(value: unknown): value is `0x${string}` {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value);
}
