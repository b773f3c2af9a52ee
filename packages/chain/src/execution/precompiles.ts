/**
 * The precompiles by fork, as EIP-7910 (eth_config) names them: what eth_config lists, what
 * movePrecompileToAddress may move, and what eth_createAccessList leaves out (geth's active
 * precompiles).
 */
import type { Common } from '@ethereumjs/common';
import { bytesToHex } from '../primitives/hex.js';

export const PRECOMPILES: [name: string, address: number, since: string][] = [
  ['ECREC', 1, 'chainstart'],
  ['SHA256', 2, 'chainstart'],
  ['RIPEMD160', 3, 'chainstart'],
  ['ID', 4, 'chainstart'],
  ['MODEXP', 5, 'byzantium'],
  ['BN254_ADD', 6, 'byzantium'],
  ['BN254_MUL', 7, 'byzantium'],
  ['BN254_PAIRING', 8, 'byzantium'],
  ['BLAKE2F', 9, 'istanbul'],
  ['KZG_POINT_EVALUATION', 0x0a, 'cancun'],
  ['BLS12_G1ADD', 0x0b, 'prague'],
  ['BLS12_G1MSM', 0x0c, 'prague'],
  ['BLS12_G2ADD', 0x0d, 'prague'],
  ['BLS12_G2MSM', 0x0e, 'prague'],
  ['BLS12_PAIRING_CHECK', 0x0f, 'prague'],
  ['BLS12_MAP_FP_TO_G1', 0x10, 'prague'],
  ['BLS12_MAP_FP2_TO_G2', 0x11, 'prague'],
  ['P256VERIFY', 0x100, 'osaka'],
];

const SINCE = new Map(PRECOMPILES.map(([, address, since]) => [BigInt(address), since]));

/** Whether `address` (20 bytes, or 0x-hex) holds a precompile under `common`'s fork. */
export function isPrecompile(address: Uint8Array | string, common: Pick<Common, 'gteHardfork'>): boolean {
  const since = SINCE.get(BigInt(typeof address === 'string' ? address : bytesToHex(address)));
  return since !== undefined && common.gteHardfork(since);
}
