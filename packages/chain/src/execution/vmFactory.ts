/**
 * A VM over a JournaledState. BLOCKHASH reads sealed hashes from storage; the Common is a copy
 * set to the block's fork so concurrent executions never share a hardfork setting.
 */
import type { Common } from '@ethereumjs/common';
import { createVM, type VM } from '@ethereumjs/vm';
import type { JournaledState } from '../state/journaledState.js';
import type { BlockReader } from '../storage/blockReader.js';

export async function createVm(
  common: Common,
  state: JournaledState,
  blocks: BlockReader,
  at?: { number: bigint; timestamp: bigint },
): Promise<VM> {
  const c = common.copy();
  if (at) c.setHardforkBy({ blockNumber: at.number, timestamp: at.timestamp });
  const blockchain = {
    async getBlock(n: number) {
      const hash = (await blocks.hashOf(BigInt(n))) ?? new Uint8Array(32);
      return { hash: () => hash };
    },
    async putBlock() {},
    shallowCopy() {
      return blockchain;
    },
  };
  return createVM({ common: c, stateManager: state, blockchain: blockchain as never });
}
