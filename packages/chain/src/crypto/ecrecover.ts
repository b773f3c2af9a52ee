/**
 * ecrecover on the native `secp256k1` binding (~8,600 recoveries/s on one core here, against
 * ~240/s for @noble/curves), shaped for `common.customCrypto.ecrecover` of @ethereumjs (the same
 * contract as @ethereumjs/util's ecrecover). Returns the 64-byte uncompressed public key without
 * its 0x04 prefix. The node's one sender recovery: every Common (chainspec/customCrypto.ts), the
 * pool's recovery thread (txpool/recoveryThread.ts).
 */
import secp256k1 from 'secp256k1';

export function nativeEcrecover(
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  const recovery = v === 0n || v === 1n ? v : chainId === undefined ? v - 27n : v - (chainId * 2n + 35n);
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value');
  if (r.length > 32 || s.length > 32) throw new Error('Invalid signature r or s length');
  const signature = new Uint8Array(64);
  signature.set(r, 32 - r.length);
  signature.set(s, 64 - s.length);
  return secp256k1.ecdsaRecover(signature, Number(recovery), msgHash, false).subarray(1);
}
