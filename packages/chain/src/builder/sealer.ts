/**
 * Durability of what the builder shows: a flashblock's journal write (beside its state root),
 * the seal (the head moves in memory, the block's batch reaches LevelDB behind it, its body
 * naming the block's journal records) and the opening of the next block in the journal (only
 * once the block sealed two before is on disk: at most three blocks' batches in flight).
 * Invariant: nothing is shown before it is on disk, in the journal or in LevelDB.
 *
 *   flashblock k:  journal.append (writer thread, O_DSYNC)  beside  PendingBlock.prepare (state root)
 *   seal n:        prepareSeal ─> commit (head moves; batch filled after `fillAfter`) ─> durable
 *                  [block n-2 durable] ─> journal.openBlock(n+1) ─> the first append of n+1 may go
 *
 * Why three blocks: docs/decisions/0010-three-block-flashblock-journal.md (the journal's files
 * rotated then; since 0521 it is an append-only log, and the wait bounds the batches in memory);
 * why the next block is opened behind the seal: docs/decisions/0020-next-journal-file-opened-behind-seal.md.
 */
import type { Block } from '@ethereumjs/block';
import type { StateTrie } from '../state/trieAdapter.js';
import type { FlashblockJournal } from './flashblockJournal.js';
import type { BuilderMetrics } from './metrics.js';
import type { IncludedTx, PendingBlock, PreparedRoot, SealedChanges } from './pendingBlock.js';

/** Blocks between two evictions of the warm account trie, and the levels it keeps. */
const WARM_TRIE_EVICT_EVERY = 4n;
const WARM_TRIE_KEEP_DEPTH = 3;
/** Sealed blocks whose batches may be on their way to the disk at once (decision 0010). */
const BATCHES_IN_FLIGHT = 3;

export interface SealerOptions {
  /** Where flashblocks go before they are shown; none: pre-confirmations do not survive a crash. */
  journal?: FlashblockJournal;
  /** Whether flashblocks are journaled now (interval mode; a block per transaction journals nothing). */
  journaling: () => boolean;
  metrics: BuilderMetrics;
  now: () => number;
  onError?: (e: unknown) => void;
  /**
   * The sealed blocks have another copy (a follower's sequencer): without a journal, the next
   * block waits only for the block BATCHES_IN_FLIGHT - 1 seals back, not for this one.
   */
  copiedElsewhere?: boolean;
}

/** A flashblock on disk, and its state root if it was computed beside the write. */
export interface JournaledFlashblock {
  prepared?: PreparedRoot;
  /** The journal write and the root (ms), for the late-flashblock report. */
  journalMs?: number;
  rootMs?: number;
}

/** A sealed block whose head has moved; `afterSeal` finishes it. */
export interface SealedBlock {
  block: Block;
  txs: IncludedTx[];
  /** The next block, opened on the sealed one. */
  next: PendingBlock;
  /** Settles when the sealed block is on disk. */
  durable: Promise<void>;
  /** Settles when the block sealed BATCHES_IN_FLIGHT - 1 before it is on disk. */
  before: Promise<void>;
  /** The accounts and slots it changed. */
  changed: SealedChanges;
}

export class Sealer {
  /**
   * When the batches of the last sealed blocks are on disk, oldest first: a new block is opened
   * in the journal once the oldest of them is (BATCHES_IN_FLIGHT - 1 are kept).
   */
  private readonly unsynced: Promise<void>[] = [];
  /**
   * Settles once the journal has the open block's opening record: its first flashblock's append
   * waits for it. The seal does not (that file's earlier block must reach the disk first).
   */
  private journalOpened: Promise<void> = Promise.resolve();
  /** The block opened during a seal, before the head moves: `pending` switches with the head. */
  opening?: PendingBlock;

  constructor(private readonly opts: SealerOptions) {}

  /** Flashblocks are journaled before they are shown (a journal, and a block time). */
  get journaled(): boolean {
    return this.opts.journal !== undefined && this.opts.journaling();
  }

  /**
   * Puts the flashblock being built (index `index`) on disk, computing its state root beside the
   * write. Throws if the write failed: then it must never be shown.
   */
  async journalFlashblock(b: PendingBlock, index: number): Promise<JournaledFlashblock> {
    const journal = this.opts.journal;
    if (!journal || !this.journaled) return {};
    const { now } = this.opts;
    const from = now();
    const out: JournaledFlashblock = {};
    // The write runs on the journal's writer thread (O_DSYNC) while this thread computes the
    // state root: a disk that stalls delays this flashblock, not the requests (decision 0210).
    const raws = b.staged.map((t) => t.raw);
    // The block's opening record first (written behind the seal; long done by now, as a rule).
    const journaled = this.journalOpened
      .then(() => journal.append(index, raws))
      .then(() => {
        out.journalMs = now() - from;
      });
    const rooted = b.prepare().then((root) => {
      out.rootMs = now() - from;
      return root;
    });
    // Both settle before either error is handled: none is left unobserved.
    const [j, r] = await Promise.allSettled([journaled, rooted]);
    if (j.status === 'rejected') throw j.reason;
    this.opts.metrics.journalAppend.observe((out.journalMs ?? 0) / 1000);
    // A root that failed (a trie read) is computed again by publish.
    if (r.status === 'fulfilled') out.prepared = r.value;
    return out;
  }

  /**
   * Seals the published transactions of `b`. The head moves at once (`opening` is the next
   * block meanwhile); the block's batch is filled once `fillAfter()` settles and reaches the disk
   * in the background (its flashblock records stay in the journal until then).
   */
  async seal(
    b: PendingBlock,
    open: (parent: Block, warm: StateTrie) => PendingBlock,
    fillAfter?: () => Promise<void>,
  ): Promise<SealedBlock> {
    const { block, txs, commit, trie, changed } = await b.prepareSeal();
    // The warm trie keeps every node the chain touched: now and then keep only its top levels.
    if (block.header.number % WARM_TRIE_EVICT_EVERY === 0n) trie.evict(WARM_TRIE_KEEP_DEPTH);
    const next = open(block, trie);
    this.opening = next;
    let durable: Promise<void>;
    try {
      // Its body is its journal records (decision 0521), if they are all there.
      const journal = this.journaled ? this.opts.journal?.rangeOf(block.header.number) : undefined;
      ({ durable } = await commit(fillAfter?.(), journal));
    } finally {
      this.opening = undefined;
    }
    durable.catch((e) => this.opts.onError?.(e));
    this.unsynced.push(durable);
    const before: Promise<void> =
      (this.unsynced.length >= BATCHES_IN_FLIGHT ? this.unsynced.shift() : undefined) ?? Promise.resolve();
    return { block, txs, next, durable, before, changed };
  }

  /**
   * After the seal's listeners: without a journal the next block is built only once the sealed
   * one is on disk (its batch is the only copy); with one, the next block's journal file starts
   * over once the block that used it last is on disk, behind the seal (only the next block's
   * first append waits; a failure fails those appends, so nothing of that block is shown).
   * `openJournal` false: recovery, which opens it once all is on disk.
   */
  async afterSeal(s: SealedBlock, openJournal: boolean): Promise<void> {
    if (!this.journaled) {
      // A follower that dies with blocks not on disk fetches them again from its sequencer.
      await (this.opts.copiedElsewhere ? s.before : s.durable);
      return;
    }
    if (!openJournal) return;
    const waitFrom = this.opts.now();
    this.journalOpened = s.before.then(async () => {
      this.opts.metrics.sealDurableWait.observe((this.opts.now() - waitFrom) / 1000);
      await this.openJournal(s.next);
    });
    this.journalOpened.catch((e) => this.opts.onError?.(e));
  }

  /** Writes `b`'s opening record: its flashblocks may be appended after it. */
  async openJournal(b: PendingBlock): Promise<void> {
    await this.opts.journal?.openBlock({
      number: b.number,
      parentHash: b.parent.hash(),
      timestamp: b.header.timestamp,
    });
  }

  /**
   * `b` was opened again (new header settings) before any flashblock of it was journaled: its
   * opening record is written again, after the one under way.
   */
  reopened(b: PendingBlock): void {
    if (!this.journaled) return;
    this.journalOpened = this.journalOpened.then(() => this.openJournal(b));
    this.journalOpened.catch((e) => this.opts.onError?.(e));
  }

  /**
   * Before history is rewritten (evm_revert, anvil_reset): every sealed block on disk, then a
   * reset record in the journal (on disk), so that nothing before it is replayed after a crash.
   */
  async rewind(): Promise<void> {
    await this.journalOpened.catch(() => {});
    for (const u of this.unsynced.splice(0)) await u.catch(() => {});
    await this.opts.journal?.reset();
    this.journalOpened = Promise.resolve();
  }

  /** Waits for the journal's last opening and closes it. */
  async close(): Promise<void> {
    await this.journalOpened.catch(() => {});
    await this.opts.journal?.close();
  }
}
