/**
 * Web3 Secret Storage (keystore v3), the format of geth and ethers:
 * scrypt (or pbkdf2-sha256 when decrypting) derives a 32-byte key; its first 16 bytes are the
 * AES-128-CTR key for the private key, and `mac = keccak256(key[16..32] ++ ciphertext)`.
 * Browser-safe: @noble only.
 */
import { ctr } from '@noble/ciphers/aes.js';
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';
import { scryptAsync } from '@noble/hashes/scrypt.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes, hexToBytes, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { privateKeyToAddress } from 'viem/accounts';

/** A keystore v3 JSON object. */
export interface KeystoreV3 {
  version: 3;
  id: string;
  /** Lower-case hex address without `0x`. */
  address: string;
  crypto: {
    cipher: 'aes-128-ctr';
    cipherparams: { iv: string };
    ciphertext: string;
    kdf: 'scrypt' | 'pbkdf2';
    kdfparams: ScryptKdfParams | Pbkdf2KdfParams;
    mac: string;
  };
}

export interface ScryptKdfParams {
  dklen: number;
  n: number;
  r: number;
  p: number;
  salt: string;
}

export interface Pbkdf2KdfParams {
  dklen: number;
  c: number;
  prf: 'hmac-sha256';
  salt: string;
}

export interface EncryptKeystoreOptions {
  /** scrypt cost; default n = 131072 (2^17, as ethers), r = 8, p = 1. */
  scrypt?: { n?: number; r?: number; p?: number };
}

export interface DecryptedKeystore {
  privateKey: `0x${string}`;
  address: `0x${string}`;
}

/** A wrong password, a broken file, or an unsupported cipher. */
export class KeystoreError extends Error {
  override readonly name = 'KeystoreError';
}

const strip0x = (hex: string) => (hex.startsWith('0x') || hex.startsWith('0X') ? hex.slice(2) : hex);

function uuidV4(): string {
  const b = randomBytes(16);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = bytesToHex(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Encrypts a private key into a keystore v3 object (scrypt + aes-128-ctr + keccak MAC). */
export async function encryptKeystore(
  privateKey: `0x${string}`,
  password: string,
  options: EncryptKeystoreOptions = {},
): Promise<KeystoreV3> {
  const key = hexToBytes(strip0x(privateKey));
  if (key.length !== 32) throw new KeystoreError('private key must be 32 bytes');
  const n = options.scrypt?.n ?? 131072;
  const r = options.scrypt?.r ?? 8;
  const p = options.scrypt?.p ?? 1;
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const derived = await scryptAsync(utf8ToBytes(password.normalize('NFKC')), salt, {
    N: n,
    r,
    p,
    dkLen: 32,
    maxmem: 2 ** 31,
  });
  const ciphertext = ctr(derived.slice(0, 16), iv).encrypt(key);
  const mac = keccak_256(concatBytes(derived.slice(16, 32), ciphertext));
  return {
    version: 3,
    id: uuidV4(),
    address: privateKeyToAddress(privateKey).slice(2).toLowerCase(),
    crypto: {
      cipher: 'aes-128-ctr',
      cipherparams: { iv: bytesToHex(iv) },
      ciphertext: bytesToHex(ciphertext),
      kdf: 'scrypt',
      kdfparams: { dklen: 32, n, r, p, salt: bytesToHex(salt) },
      mac: bytesToHex(mac),
    },
  };
}

/**
 * Decrypts a keystore v3 (object or JSON text; `crypto` or `Crypto`, scrypt or pbkdf2).
 * Throws KeystoreError('invalid password') when the MAC does not match.
 */
export async function decryptKeystore(
  keystore: KeystoreV3 | string,
  password: string,
): Promise<DecryptedKeystore> {
  let json: Record<string, any>;
  try {
    json = typeof keystore === 'string' ? JSON.parse(keystore) : (keystore as unknown as Record<string, any>);
  } catch {
    throw new KeystoreError('keystore is not valid JSON');
  }
  const c = json?.crypto ?? json?.Crypto;
  if (Number(json?.version) !== 3 || !c) throw new KeystoreError('not a keystore v3');
  if (String(c.cipher).toLowerCase() !== 'aes-128-ctr')
    throw new KeystoreError(`unsupported cipher ${c.cipher}`);
  const kp = c.kdfparams ?? {};
  const salt = hexToBytes(strip0x(String(kp.salt)));
  const dkLen = Number(kp.dklen ?? 32);
  const pass = utf8ToBytes(password.normalize('NFKC'));
  let derived: Uint8Array;
  if (String(c.kdf).toLowerCase() === 'scrypt') {
    derived = await scryptAsync(pass, salt, {
      N: Number(kp.n),
      r: Number(kp.r),
      p: Number(kp.p),
      dkLen,
      maxmem: 2 ** 31,
    });
  } else if (String(c.kdf).toLowerCase() === 'pbkdf2') {
    if (kp.prf !== 'hmac-sha256') throw new KeystoreError(`unsupported prf ${kp.prf}`);
    derived = await pbkdf2Async(sha256, pass, salt, { c: Number(kp.c), dkLen });
  } else {
    throw new KeystoreError(`unsupported kdf ${c.kdf}`);
  }
  const ciphertext = hexToBytes(strip0x(String(c.ciphertext)));
  const mac = bytesToHex(keccak_256(concatBytes(derived.slice(16, 32), ciphertext)));
  if (mac !== strip0x(String(c.mac)).toLowerCase()) throw new KeystoreError('invalid password');
  const iv = hexToBytes(strip0x(String(c.cipherparams?.iv)));
  const privateKey = `0x${bytesToHex(ctr(derived.slice(0, 16), iv).decrypt(ciphertext))}` as const;
  const address = privateKeyToAddress(privateKey);
  if (json.address && strip0x(String(json.address)).toLowerCase() !== address.slice(2).toLowerCase())
    throw new KeystoreError('keystore address does not match its key');
  return { privateKey, address };
}
