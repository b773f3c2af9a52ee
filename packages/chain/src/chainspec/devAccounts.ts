/**
 * Dev accounts from a BIP-39 mnemonic on the path m/44'/60'/0'/0/i, as Anvil and Hardhat
 * derive them (the same addresses and keys for the same words).
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { pbkdf2 } from '@noble/hashes/pbkdf2.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { keccak256 } from '../crypto/keccak.js';
import { bytesToHex } from '../primitives/hex.js';

export interface DerivedAccount {
  address: `0x${string}`;
  privateKey: `0x${string}`;
}

const N = secp256k1.Point.CURVE().n;
const enc = new TextEncoder();

function toBig(b: Uint8Array): bigint {
  return BigInt(bytesToHex(b));
}
function to32(n: bigint): Uint8Array {
  const hex = n.toString(16).padStart(64, '0');
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

function deriveChild(key: Uint8Array, chain: Uint8Array, index: number): [Uint8Array, Uint8Array] {
  const hardened = index >= 0x80000000;
  const data = new Uint8Array(37);
  if (hardened) data.set(key, 1);
  else data.set(secp256k1.getPublicKey(key, true), 0);
  new DataView(data.buffer).setUint32(33, index >>> 0);
  const I = hmac(sha512, chain, data);
  const child = (toBig(I.subarray(0, 32)) + toBig(key)) % N;
  return [to32(child), I.slice(32)];
}

export function addressOfKey(privateKey: Uint8Array): `0x${string}` {
  const pub = secp256k1.getPublicKey(privateKey, false).subarray(1);
  return bytesToHex(keccak256(pub).subarray(12));
}

export function deriveDevAccounts(mnemonic: string, count: number): DerivedAccount[] {
  const seed = pbkdf2(sha512, enc.encode(mnemonic.normalize('NFKD')), enc.encode('mnemonic'), {
    c: 2048,
    dkLen: 64,
  });
  const master = hmac(sha512, enc.encode('Bitcoin seed'), seed);
  let key: Uint8Array = master.slice(0, 32);
  let chain: Uint8Array = master.slice(32);
  const H = 0x80000000;
  for (const i of [44 + H, 60 + H, 0 + H, 0]) [key, chain] = deriveChild(key, chain, i);
  const out: DerivedAccount[] = [];
  for (let i = 0; i < count; i++) {
    const [k] = deriveChild(key, chain, i);
    out.push({ address: addressOfKey(k), privateKey: bytesToHex(k) });
  }
  return out;
}
