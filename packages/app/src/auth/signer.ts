/** Turns a stored signer into a viem account (dev accounts are derived, keys imported). */
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { devAccounts, privateKeyOf } from './wharfUpAccounts.js';
import type { Signer } from './session.js';

export async function privateKeyOfSigner(signer: Signer): Promise<`0x${string}`> {
  if (signer.kind === 'key') return signer.privateKey;
  const accounts = await devAccounts();
  const account = accounts[signer.index];
  if (!account) throw new Error(`no dev account ${signer.index}`);
  return privateKeyOf(account);
}

export async function accountOfSigner(signer: Signer): Promise<PrivateKeyAccount> {
  return privateKeyToAccount(await privateKeyOfSigner(signer));
}

/** Accepts a 32-byte hex key with or without 0x; returns it normalized, or undefined. */
export function parsePrivateKey(text: string): `0x${string}` | undefined {
  const hex = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex) || /^0+$/.test(hex)) return undefined;
  return `0x${hex.toLowerCase()}`;
}
