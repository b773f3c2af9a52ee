/** Block 0 and its state, from the chain spec (dev accounts or a geth genesis alloc). */
import { createBlock } from '@ethereumjs/block';
import { Address } from '@ethereumjs/util';
import { JournaledState } from '../state/journaledState.js';
import type { StateReader } from '../state/stateReader.js';
import { computeStateRoot } from '../state/stateRoot.js';
import { EMPTY_TRIE_ROOT } from '../trie/index.js';
import type { ChainContext } from './chainContext.js';
import { commitBlock } from './commitBlock.js';

const nothing: StateReader = {
  readAccount: async () => undefined,
  readStorage: async () => new Uint8Array(0),
  readCode: async () => new Uint8Array(0),
};

export async function writeGenesis(ctx: ChainContext): Promise<void> {
  const { spec } = ctx;
  const state = new JournaledState(nothing);
  for (const a of spec.alloc) {
    const address = new Address(a.address);
    await state.modifyAccountFields(address, { balance: a.balance, nonce: a.nonce });
    if (a.code?.length) await state.putCode(address, a.code);
    for (const [slot, value] of a.storage) {
      const key = new Uint8Array(32);
      key.set(slot.subarray(Math.max(0, slot.length - 32)), 32 - Math.min(32, slot.length));
      await state.putStorage(address, key, value);
    }
  }
  const root = await computeStateRoot(EMPTY_TRIE_ROOT, nothing, state.diff(), ctx.nodes);
  const g = spec.genesisHeader;
  const common = spec.common.copy();
  common.setHardforkBy({ blockNumber: 0n, timestamp: g.timestamp });
  const block = createBlock(
    {
      header: {
        number: 0n,
        gasLimit: g.gasLimit,
        timestamp: g.timestamp,
        extraData: g.extraData,
        difficulty: g.difficulty,
        nonce: g.nonce,
        mixHash: g.mixHash,
        coinbase: g.coinbase,
        baseFeePerGas: g.baseFeePerGas,
        stateRoot: root.root,
      },
      ...(common.isActivatedEIP(4895) ? { withdrawals: [] } : {}),
    },
    { common },
  );
  await (await commitBlock(ctx, { block, receipts: [], senders: [] }, state, root)).durable;
}
