/**
 * The store deletions that take the canonical blocks after `after` up to `head` off the chain
 * (a revert to a snapshot, a reset to the fork point): their canonical numbers, bodies, receipts,
 * senders and transaction-index entries. The caller adds the head and the state in one batch.
 */
import type { ChainContext } from './chainContext.js';
import { keys } from '../storage/keys.js';

export async function blockDeletions(
  ctx: ChainContext,
  after: bigint,
  head: bigint,
): Promise<{ key: Uint8Array }[]> {
  const { store, blocks } = ctx;
  const ops: { key: Uint8Array }[] = [];
  for (let n = after + 1n; n <= head; n++) {
    const hash = await store.hashByNumber(n);
    if (!hash) continue;
    const block = await blocks.byHash(hash);
    for (const tx of block?.transactions ?? [])
      for (const key of store.txIndexKeys(tx.hash())) ops.push({ key });
    ops.push({ key: keys.canonical(n) }, { key: keys.block(hash) }, { key: keys.receipts(hash) });
    ops.push({ key: keys.senders(hash) });
  }
  return ops;
}
