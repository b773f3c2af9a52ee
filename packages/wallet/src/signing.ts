/**
 * personal_sign and eth_signTypedData_v4 with viem's local accounts.
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { walletErrors } from './errors.js';

/** personal_sign: a 0x-hex message is signed as bytes, any other string as UTF-8 text (as MetaMask). */
export function signPersonalMessage(account: PrivateKeyAccount, message: string): Promise<`0x${string}`> {
  const isHex = /^0x([0-9a-fA-F]{2})*$/.test(message);
  return account.signMessage({ message: isHex ? { raw: message as `0x${string}` } : message });
}

/** eth_signTypedData_v4 (EIP-712). */
export async function signTypedDataV4(
  account: PrivateKeyAccount,
  typedData: {
    domain?: Record<string, unknown>;
    types: Record<string, unknown>;
    primaryType: string;
    message?: unknown;
  },
): Promise<`0x${string}`> {
  const domain = { ...(typedData.domain ?? {}) };
  if (typeof domain.chainId === 'string') domain.chainId = BigInt(domain.chainId);
  try {
    return await account.signTypedData({
      domain,
      types: typedData.types,
      primaryType: typedData.primaryType,
      message: (typedData.message ?? {}) as Record<string, unknown>,
    } as Parameters<PrivateKeyAccount['signTypedData']>[0]);
  } catch (error) {
    throw walletErrors.invalidParams(
      `Invalid typed data: ${error instanceof Error ? error.message.split('\n')[0] : error}`,
    );
  }
}
