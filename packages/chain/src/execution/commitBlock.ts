/**
 * The seal's write path, shared by our builder and by chain import: fold the block's state diff
 * into the trie (one batch), write block + receipts + indexes + flat state + nodes atomically,
 * then move the in-memory head and caches. The head moves at once; the batch reaches the disk
 * behind it (storage/chainStore.ts) and `durable` says when.
 */
import type { Block } from '@ethereumjs/block';
import { RLP } from '@ethereumjs/rlp';
import { concat, hexToBytes } from '../primitives/hex.js';
import type { JournaledState, StateDiff } from '../state/journaledState.js';
import { encodeAccount } from '../state/accountCodec.js';
import { computeStateRoot, type RootResult } from '../state/stateRoot.js';
import type { StateReader } from '../state/stateReader.js';
import type { BlockWrite } from '../storage/chainStore.js';
import type { JournalRange } from '../storage/journalRecords.js';
import type { ChainContext } from './chainContext.js';

export interface ExecutedBlock {
  block: Block;
  /** The block's RLP when the caller assembled it already. */
  rlp?: Uint8Array;
  /** Consensus encodings, one per transaction. */
  receipts: Uint8Array[];
  senders: Uint8Array[];
  /** The transactions' hashes when the caller has them (hashing 2,000 again costs ~40 ms). */
  txHashes?: Uint8Array[];
  /** Where the block's flashblock records are in the journal (BlockWrite.journal). */
  journal?: JournalRange;
}

/** The state root that `state` (an overlay over the sealed state at `baseRoot`) would seal to. */
export function rootOf(ctx: ChainContext, baseRoot: Uint8Array, base: StateReader, diff: StateDiff) {
  return computeStateRoot(baseRoot, base, diff, ctx.nodes);
}

export async function commitBlock(
  ctx: ChainContext,
  executed: ExecutedBlock,
  state: Pick<JournaledState, 'diff'>,
  root: RootResult,
  /** When the block's batch may be filled (ChainStore.writeBlock's `fillAfter`); at once if absent. */
  fillAfter?: Promise<unknown>,
): Promise<{ durable: Promise<void> }> {
  const { block } = executed;
  const diff = state.diff();
  const w: BlockWrite = {
    hash: block.hash(),
    number: block.header.number,
    rlp: executed.rlp ?? block.serialize(),
    // As consensus encodes them (readable as they are); the store cuts the blooms out when it
    // fills the batch, off this path (decision 0421).
    receipts: RLP.encode(executed.receipts),
    senders: concat(...executed.senders),
    txHashes: executed.txHashes ?? block.transactions.map((t) => t.hash()),
    accounts: new Map(),
    clearedStorage: [],
    storage: [],
    code: [...diff.code].map(([h, code]) => ({ hash: hexToBytes(h), code })),
    nodes: root.nodes,
    journal: executed.journal,
  };
  const sealedAccounts: {
    address: Uint8Array;
    account: (ReturnType<typeof root.accounts.get> & {}) | null;
  }[] = [];
  for (const [k, account] of root.accounts) {
    const address = hexToBytes(k);
    w.accounts.set(k, { address, rlp: account ? (root.encoded?.get(k) ?? encodeAccount(account)) : null });
    sealedAccounts.push({ address, account });
    const slots = diff.storage.get(k);
    if (!account || slots?.cleared) w.clearedStorage.push(address);
    if (!account || !slots) continue;
    for (const [slot, value] of slots.slots) w.storage.push({ address, slot: hexToBytes(slot), value });
  }
  const durable = ctx.store.writeBlock(w, fillAfter);
  ctx.flat.applySealed(
    { accounts: sealedAccounts, clearedStorage: w.clearedStorage, storage: w.storage },
    root.trie,
  );
  ctx.blocks.setHead(block, w.rlp.length);
  return { durable };
}
