/**
 * The ten dev accounts of `wharf up` (the Anvil/Hardhat mnemonic), derived in the page.
 * viem's `mnemonicToAccount` stretches the mnemonic (PBKDF2, 2,048 rounds) on every call, about
 * 170 ms each; we stretch it once with WebCrypto and derive the ten children from that seed.
 */
import { HDKey, type HDAccount, hdKeyToAccount, mnemonicToAccount } from 'viem/accounts';

export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEV_ACCOUNT_COUNT = 10;

/** BIP-39 seed: PBKDF2-HMAC-SHA512(NFKD(mnemonic), "mnemonic", 2048) -> 64 bytes. */
async function seedOf(mnemonic: string): Promise<Uint8Array> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(mnemonic.normalize('NFKD')), 'PBKDF2', false, [
    'deriveBits',
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-512', salt: enc.encode('mnemonic'), iterations: 2048 },
    key,
    512,
  );
  return new Uint8Array(bits);
}

let cached: Promise<HDAccount[]> | undefined;

/** The dev accounts, index 0..9 (memoized). */
export function devAccounts(mnemonic = DEV_MNEMONIC, count = DEV_ACCOUNT_COUNT): Promise<HDAccount[]> {
  if (mnemonic === DEV_MNEMONIC && count === DEV_ACCOUNT_COUNT && cached) return cached;
  const derive = async () => {
    const indexes = Array.from({ length: count }, (_, i) => i);
    // crypto.subtle exists only in secure contexts (https, localhost): otherwise the slow path.
    if (!globalThis.crypto?.subtle)
      return indexes.map((i) => mnemonicToAccount(mnemonic, { addressIndex: i }));
    const master = HDKey.fromMasterSeed(await seedOf(mnemonic));
    return indexes.map((i) => hdKeyToAccount(master, { addressIndex: i }));
  };
  const result = derive();
  if (mnemonic === DEV_MNEMONIC && count === DEV_ACCOUNT_COUNT) cached = result;
  return result;
}

/** The private key of a derived account, so that the wallet can hold it. */
export function privateKeyOf(account: HDAccount): `0x${string}` {
  const key = account.getHdKey().privateKey;
  if (!key) throw new Error('derived account has no private key');
  return `0x${Array.from(key, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
