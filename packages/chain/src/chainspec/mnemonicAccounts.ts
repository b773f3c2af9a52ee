/**
 * Dev accounts from a BIP-39 mnemonic on the path m/44'/60'/0'/0/i, as Anvil and Hardhat derive
 * them (the same addresses and keys for the same words): @scure/bip39 checks the words and their
 * checksum and makes the seed, @scure/bip32 derives the keys. A mnemonic with a typo is refused
 * (a wrong word would silently give other accounts).
 */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import secp256k1 from 'secp256k1';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex } from '../primitives/hex.js';

export interface DerivedAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

/** Anvil's and Hardhat's path: account i is m/44'/60'/0'/0/i. */
const ACCOUNT_PATH = "m/44'/60'/0'/0";

/** A mnemonic that is not BIP-39 (a word outside the English list, a wrong checksum). */
export class InvalidMnemonicError extends Error {
  override readonly name = 'InvalidMnemonicError';
}

/** The first `count` accounts of `mnemonic`; throws InvalidMnemonicError naming what is wrong. */
export function deriveDevAccounts(mnemonic: string, count: number): DerivedAccount[] {
  const words = mnemonic.normalize('NFKD').trim().split(/\s+/);
  const phrase = words.join(' ');
  if (!validateMnemonic(phrase, wordlist)) throw new InvalidMnemonicError(whyInvalid(words));
  const base = HDKey.fromMasterSeed(mnemonicToSeedSync(phrase)).derive(ACCOUNT_PATH);
  const out: DerivedAccount[] = [];
  for (let i = 0; i < count; i++) {
    const key = base.deriveChild(i).privateKey!;
    out.push({ address: addressOfKey(key), privateKey: bytesToHex(key) });
  }
  return out;
}

/** Says which word is not a BIP-39 word, or that the checksum fails; never repeats the phrase. */
function whyInvalid(words: string[]): string {
  const prefix = 'the mnemonic is not a valid BIP-39 mnemonic';
  if (![12, 15, 18, 21, 24].includes(words.length))
    return `${prefix}: it has ${words.length} words, want 12, 15, 18, 21 or 24`;
  const known = new Set(wordlist);
  const unknown = words.findIndex((w) => !known.has(w));
  if (unknown >= 0)
    return `${prefix}: word ${unknown + 1} ("${words[unknown]}") is not in the English word list`;
  return `${prefix}: its checksum does not match (a word is mistyped or out of place)`;
}

/** The address of a private key: the last 20 bytes of keccak256 of the uncompressed public key. */
function addressOfKey(privateKey: Uint8Array): `0x${string}` {
  const pub = secp256k1.publicKeyCreate(privateKey, false).subarray(1);
  return bytesToHex(keccak256(pub).subarray(12));
}
