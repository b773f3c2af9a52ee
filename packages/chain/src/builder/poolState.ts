/**
 * What the pool validates against: the state after the builder's last flashblock (its own, even
 * while blockTime 0 hides it from readers: the pool has already let those transactions go).
 */
import { hexToBytes } from '../primitives/hex.js';
import { readAccountKeyed } from '../state/stateReader.js';
import type { PoolStateReader } from '../txpool/types.js';
import type { PendingBlock } from './pendingBlock.js';

/** Nonces and balances of the block being built (`building()`: it changes at each seal). */
export function poolStateOf(building: () => PendingBlock): PoolStateReader {
  const read = (a: string) => {
    const key = a.toLowerCase();
    return readAccountKeyed(building().state, key, hexToBytes(key));
  };
  return {
    getNonce: async (a) => (await read(a))?.nonce ?? 0n,
    getBalance: async (a) => (await read(a))?.balance ?? 0n,
    // One read per submission, not two.
    getAccount: async (a) => {
      const account = await read(a);
      return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n };
    },
  };
}
