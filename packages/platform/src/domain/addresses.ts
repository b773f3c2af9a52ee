/** Wallet addresses: 0x + 40 hex digits in any letter case, answered in EIP-55 form. */
import { getAddress } from 'viem';

const addressRe = /^0x[0-9a-fA-F]{40}$/;

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && addressRe.test(value);
}

/** EIP-55 checksum form. No checksum check on input: any letter case is accepted. */
export function toChecksumAddress(address: string): string {
  return getAddress(address.toLowerCase());
}
