/**
 * At start-up, before the builder starts: finishes the blocks the flashblock journal holds past
 * the head (same timestamp, same transactions in the same order) and seals them. A block sealed
 * just before a crash whose batch had not reached the disk comes back with the same hash (same
 * inputs). Invariant: what a flashblock showed is in the chain after a restart.
 */
import type { Block } from '@ethereumjs/block';
import { createTxFromRLP } from '@ethereumjs/tx';
import { bytesToHex, equalBytes } from '../primitives/hex.js';
import type { FlashblockJournal } from './flashblockJournal.js';
import type { PendingBlock } from './pendingBlock.js';

export interface RecoveryOutcome {
  /** Transactions of the interrupted block that were re-executed and sealed. */
  replayed: number;
  /** The block sealed from the journal, if there was an interrupted one. */
  sealed?: Block;
}

export interface RecoverySteps {
  head: () => Block;
  /** Makes a block on `parent` with the journaled timestamp the block being built. */
  openAt: (parent: Block, timestamp: bigint) => PendingBlock;
  /** Seals the block being built without opening the journal for the next. */
  seal: () => Promise<Block>;
  /** Settles when every sealed block is on disk. */
  flushed: () => Promise<void>;
  /** Opens the journal for the block being built. */
  openJournal: () => Promise<void>;
  onError?: (e: unknown) => void;
}

/**
 * Seals the blocks the journal holds past the head, waits until they are on disk, then opens
 * the journal for the next block. Without a journal there is nothing to recover.
 */
export async function recoverFromJournal(
  journal: FlashblockJournal | undefined,
  steps: RecoverySteps,
): Promise<RecoveryOutcome> {
  if (!journal) return { replayed: 0 };
  const outcome = await replayJournal(journal, steps);
  await steps.flushed();
  // The blocks a journal of before decision 0521 held are on disk now.
  await journal.dropLegacy();
  await steps.openJournal();
  return outcome;
}

/**
 * Replays and seals the journaled blocks past the head. No journal is opened here: the caller
 * waits until every replayed block is on disk first (their records are the only copy).
 */
async function replayJournal(journal: FlashblockJournal, steps: RecoverySteps): Promise<RecoveryOutcome> {
  const blocks = await journal.load();
  let replayed = 0;
  let sealed: Block | undefined;
  for (const [i, j] of blocks.entries()) {
    const head = steps.head();
    if (j.number !== head.header.number + 1n || !equalBytes(j.parentHash, head.hash())) continue;
    // An empty block is only worth sealing when a journaled successor names it as parent.
    if (!j.txs.length && i === blocks.length - 1) continue;
    const b = steps.openAt(head, j.timestamp);
    for (const raw of j.txs) {
      const tx = createTxFromRLP(raw, { common: b.header.common });
      const r = await b.add(tx);
      if (!r.ok)
        steps.onError?.(
          new Error(`journaled transaction ${bytesToHex(tx.hash())} no longer executes: ${r.reason}`),
        );
    }
    await b.publish(j.lastIndex);
    replayed += b.snapshot.txs.length;
    sealed = await steps.seal();
  }
  return { replayed, sealed };
}
