/** Test helpers for the state and storage tests: blocks that change state only. */
import { hexToBytes } from '../src/primitives/hex.js';
import type { RootResult } from '../src/state/stateRoot.js';
import type { BlockWrite } from '../src/storage/chainStore.js';

/**
 * Block `b` as ChainStore.writeBlock takes it, carrying no transactions: only the accounts and
 * trie nodes of `r` (a computeStateRoot result; its accounts all exist).
 */
export function stateOnlyBlock(b: number, r: Pick<RootResult, 'accounts' | 'nodes'>): BlockWrite {
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
  for (const [k, a] of r.accounts) w.accounts.set(k, { address: hexToBytes(k), rlp: a!.serialize() });
  return w;
}
