/** Test helpers for the state and storage tests: blocks that change state only. */
import { hexToBytes } from '../src/primitives/hex.js';
import type { StateDiff } from '../src/state/journaledState.js';
import type { RootResult } from '../src/state/stateRoot.js';
import type { BlockWrite } from '../src/storage/chainStore.js';

/**
 * Block `b` as ChainStore.writeBlock takes it, carrying no transactions: the accounts (null =
 * deleted) and trie nodes of `r` (a computeStateRoot result), and the slots and cleared storage
 * tries of `storage` (the StateDiff's storage that `r` was computed from), if any.
 */
export function stateOnlyBlock(
  b: number,
  r: Pick<RootResult, 'accounts' | 'nodes'>,
  storage?: StateDiff['storage'],
): BlockWrite {
  const w: BlockWrite = {
    hash: new Uint8Array(32).fill(b + 1),
    number: BigInt(b),
    rlp: Uint8Array.of(0xc0),
    receipts: Uint8Array.of(0xc0),
    senders: new Uint8Array(0),
    txHashes: [],
    accounts: new Map(),
    clearedStorage: [],
    storage: [],
    code: [],
    nodes: r.nodes,
  };
  for (const [k, a] of r.accounts)
    w.accounts.set(k, { address: hexToBytes(k), rlp: a ? a.serialize() : null });
  for (const [c, s] of storage ?? []) {
    const address = hexToBytes(c);
    if (s.cleared) w.clearedStorage.push(address);
    for (const [slot, value] of s.slots) w.storage.push({ address, slot: hexToBytes(slot), value });
  }
  return w;
}
