/**
 * Block production as flashblocks. A block opens (flashblock index 0, no transactions) the
 * moment its parent is sealed; pool arrivals are executed into the flashblock being built as
 * they come (staged, in 10 ms batches, invisible); every `flashblockInterval` whatever is staged
 * is journaled (one O_DSYNC write) and published as flashblock 1, 2, ...; at the block time the last
 * flashblock is published and the block is sealed with exactly the published transactions, in
 * order. A flashblock reaches the journal before it is published: a crash loses nothing that
 * anyone has seen, and `recover()` finishes the interrupted blocks at the next start.
 * All builder work runs on one serial queue, so a seal never interleaves with a flashblock.
 *
 *   pool.onAdded ─> (10 ms) queue: stage ─> PendingBlock.add (working layer) ─> rootAhead
 *   timer (absolute deadlines: open + k * interval) ─> busy (RPC input held) ─> queue: flashblock(k)
 *       stage the rest (as time allows) ─> PendingBlock.prepare (the state root, on the fork
 *       rootAhead keeps) beside journal.append (O_DSYNC) ─> PendingBlock.publish ─>
 *       onFlashblockBuilt listeners (streams render) ─> at the deadline: pending reads switch ─>
 *       onFlashblock listeners ─> pool.onIncluded ─> not busy
 *   k * interval >= blockTime ─> seal: prepareSeal ─> commitBlock (head moves in memory; the
 *       LevelDB batch is filled once the next block's index 1 is shown, and written behind) ─>
 *       onSealed listeners (newHeads, logs) ─> onFlashblock(index 0)
 *       and behind it: [block n-2 on disk] ─> journal.openBlock (n+1) ─> the first append may go
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Block } from '@ethereumjs/block';
import { createTxFromRLP } from '@ethereumjs/tx';
import type { ChainContext } from '../execution/chainContext.js';
import { bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.js';
import { readAccountKeyed } from '../state/stateReader.js';
import type { StateTrie } from '../state/trieAdapter.js';
import type { PoolStateReader, PoolTransaction, TxPool } from '../txpool/types.js';
import { FlashblockJournal } from './flashblockJournal.js';
import { BuilderMetrics } from './metrics.js';
import type { JournaledState } from '../state/journaledState.js';
import {
  type HeaderOverrides,
  type IncludedTx,
  PendingBlock,
  type PendingSnapshot,
  type PreparedRoot,
  type SealedChanges,
} from './pendingBlock.js';

/** How long pool arrivals are gathered before they are executed into the flashblock being built. */
const STAGE_BATCH_MS = 10;
/** A staging pass this close to the next flashblock's timer yields at every transaction. */
const STAGE_NEAR_TIMER_MS = 2;
/** Recent flashblock build times kept to decide how early the next one starts. */
const BUILD_TIMES_KEPT = 50;
/**
 * Which of the kept build times the lead covers, the margin added, and its cap (of an interval).
 * The margin was 5 ms while execution took most of the thread; with plain transfers off the EVM
 * (2026-11-26) the time it costs transactions went unseen: 8 alternated pairs of 30 s at 1,000
 * tx/s, 20 ms (and a staging stop 10 ms before the recent finishing time, below) against 5 ms
 * (and 5 ms after): interval deviation p99 6.4-40.0 ms (mean 18.9, 5 runs of 8 within 20)
 * against 8.3-60.7 (mean 32.5, 3 of 8), submit-to-pending p99 196.5-209.5 against 197.1-200.4.
 */
const LEAD_PERCENTILE = 0.98;
const LEAD_MARGIN_MS = 20;
const LEAD_CAP = 0.3;
/**
 * When a flashblock stops executing transactions: this much later than its deadline less its
 * recent finishing time (journal write, root, publication; LEAD_PERCENTILE of them; negative:
 * earlier), and never before it has staged this long. Measured 2026-11-26 at 1,000 tx/s, three
 * runs each: stopping 3 ms before (and at least 5 ms) met the interval goal every time but left
 * up to 3.4% of the transactions to the next flashblock (submit-to-pending p99 244-279 ms in half
 * the runs); 5 ms after and at least 12 ms: interval deviation p99 9-14 ms, submit-to-pending
 * p99 192-198 ms. Since plain transfers left the EVM, 10 ms before (see LEAD_MARGIN_MS).
 */
const LATE_ALLOWANCE_MS = -10;
const STAGE_MIN_MS = 12;
/** Blocks between two evictions of the warm account trie, and the levels it keeps. */
const WARM_TRIE_EVICT_EVERY = 4n;
const WARM_TRIE_KEEP_DEPTH = 3;

export interface ProducerOptions {
  /** Seconds between seals; 0 seals one block per transaction. */
  blockTime: number;
  /** Milliseconds between flashblocks. */
  flashblockInterval: number;
  mining: boolean;
  extraData?: Uint8Array;
  /** Where flashblocks go before they are published; none: pre-confirmations do not survive a crash. */
  journal?: FlashblockJournal;
  now?: () => number;
  onError?: (e: unknown) => void;
  /** A timed flashblock was shown late (more than a tenth of the interval), and why. */
  onLate?: (late: LateFlashblock) => void;
}

/** Where a late flashblock's time went (ms). */
export interface LateFlashblock {
  block: bigint;
  index: number;
  /** Shown this long after its deadline. */
  lateMs: number;
  /** Its deadline had passed by this much when it was scheduled (what ran before it ran past it). */
  behindMs: number;
  /** Its timer fired this long after it was set to (the event loop was busy). */
  timerMs: number;
  /** It waited this long in the builder's queue (a staging pass or a seal ahead of it). */
  queuedMs: number;
  /** From its start to built: staging what was left, the journal write, the state root. */
  buildMs: number;
  /** Of which executing what no staging pass had (`stagedHere` transactions). */
  stageMs: number;
  stagedHere: number;
  /** The journal write, and the state root computed beside it, if it had transactions. */
  journalMs?: number;
  rootMs?: number;
  /** From the later of deadline and built to shown (the event loop was busy at the deadline). */
  wakeMs: number;
}

/**
 * A flashblock's own staging: from `stopAt` on (ms, `now()`) it executes only the transactions
 * the flashblock before left (`forced`), and notes the others it leaves (`left`).
 */
interface InFlashblock {
  stopAt: number;
  forced: ReadonlySet<string>;
  left: Set<string>;
}

/** A timed flashblock: shown at its deadline; when its timer was set to fire, and fired (ms, `now()`). */
interface FlashblockTiming {
  showAt: number;
  firesAt: number;
  firedAt: number;
}

export type SealListener = (block: Block, txs: IncludedTx[]) => void;
export type SealedChangesListener = (block: Block, changed: SealedChanges) => void;
/**
 * How blocks are sealed (the dev methods switch it: evm_setAutomine, evm_setIntervalMining).
 * `interval`: flashblocks every flashblockInterval, a seal every blockTime (wharf's own);
 * `auto`: a block per transaction (blockTime 0; Anvil's and Hardhat's default); `manual`: no
 * sealing and no pre-confirmation of pool transactions until `mine()` (Hardhat's automine off).
 * See docs/decisions/0140-dev-methods-and-flashblocks.md.
 */
export type SealMode = 'interval' | 'auto' | 'manual';
export type FlashblockListener = (snapshot: PendingSnapshot) => void;
/**
 * `busy`: a timed flashblock (and the seal after the last) is due and being built, until it is
 * shown. Not busy, `nextAt` (if known) is when the next window begins: called again with it
 * each time the next flashblock is scheduled.
 */
export type BusyListener = (busy: boolean, nextAt?: number) => void;

export interface RecoveryOutcome {
  /** Transactions of the interrupted block that were re-executed and sealed. */
  replayed: number;
  /** The block sealed from the journal, if there was an interrupted one. */
  sealed?: Block;
}

export class BlockProducer {
  private building: PendingBlock;
  /** The block opened during a seal, before the head moves: pending switches with the head. */
  private next?: PendingBlock;
  private queue: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private blockStart = 0;
  private readonly sealListeners = new Set<SealListener>();
  private readonly flashblockListeners = new Set<FlashblockListener>();
  private readonly builtListeners = new Set<FlashblockListener>();
  private readonly busyListeners = new Set<BusyListener>();
  private busy = false;
  /** When the armed flashblock timer fires (Date.now() clock); infinite once it has, or none is. */
  private firesAt = Number.POSITIVE_INFINITY;
  /** Ends a busy window that ran past half an interval: input is held no longer than that. */
  private busyCap?: NodeJS.Timeout;
  private stopped = false;
  private pool?: TxPool;
  /** Build time, transactions per flashblock, submit-to-pending, seal time (GET /metrics). */
  readonly metrics = new BuilderMetrics();
  /** Pool transactions executed into the pending block, by hash. */
  private readonly included = new Map<string, PoolTransaction>();
  /** Executed into the flashblock being built, not yet published (in execution order). */
  private staged: PoolTransaction[] = [];
  private readonly stagedHashes = new Set<string>();
  /**
   * Per sender, the nonce after its last transaction executed into this block (staged or
   * pre-confirmed): candidates() starts each sender there instead of walking those again.
   */
  private readonly nextNonce = new Map<string, bigint>();
  /** A staging pass is scheduled (pool arrivals are batched, not executed one by one). */
  private stageTimer?: NodeJS.Timeout;
  /**
   * When the batches of the last sealed blocks are on disk, oldest first: the journal file a new
   * block takes over held the oldest of them (FlashblockJournal.FILES - 1 are kept).
   */
  private readonly unsynced: Promise<void>[] = [];
  /**
   * Settles once the journal has the open block's opening record: its first flashblock's append
   * waits for it. The seal does not (that file's earlier block must reach the disk first, and
   * the truncate + O_DSYNC write took 5-24 ms under load, all of it added to the seal).
   */
  private journalOpened: Promise<void> = Promise.resolve();
  /** A flashblock's deadline has passed and its job waits in the queue. */
  private tickDue = false;
  /** Settles `whenTickDue()` waiters when the next flashblock timer fires. */
  private onTickDue?: () => void;
  private tickDueSignal?: Promise<void>;
  /**
   * What `pending` shows while the builder is ahead of readers: a flashblock built early and not
   * yet due, or (blockTime 0) a transaction executed and not yet sealed.
   */
  private hidden?: PendingSnapshot;
  /** How long recent flashblocks took from their timer firing to being built (ms). */
  private readonly buildTimes: number[] = [];
  /** How long recent flashblocks with transactions took from the end of their staging to being built (ms). */
  private readonly finishTimes: number[] = [];
  /** The transactions the last flashblock left when it stopped staging: the next one stages them. */
  private leftToNext: ReadonlySet<string> = new Set();
  /** How long recent `rootAhead` calls took (ms). */
  private readonly aheadTimes: number[] = [];
  /** Pool transactions whose trie paths this block is reading ahead (`warm`), and those reads. */
  private warmed = new WeakMap<PoolTransaction, Promise<void>>();
  /** Settled when the next flashblock of index 1 or more is shown, or by `stop()` (`nextShown`). */
  private readonly shownWaiters: (() => void)[] = [];
  private mode: SealMode;
  private readonly changesListeners = new Set<SealedChangesListener>();
  /** Dev methods' header settings: kept for every later block (`sticky`) or the next one opened. */
  private readonly sticky: { gasLimit?: bigint; coinbase?: Uint8Array } = {};
  private nextHeader: { timestamp?: bigint; baseFee?: bigint } = {};
  /** Added to the clock for block timestamps (evm_increaseTime), in ms. */
  private clockOffsetMs = 0;
  /** Dev methods' changes in the block being built, to apply again if it is opened again. */
  private blockEdits: ((s: JournaledState) => Promise<void>)[] = [];

  constructor(
    private readonly ctx: ChainContext,
    private readonly opts: ProducerOptions,
  ) {
    this.mode = !opts.mining ? 'manual' : opts.blockTime === 0 ? 'auto' : 'interval';
    this.building = this.open(ctx.blocks.head);
  }

  /** What `pending` reads see: the block being built as of its last flashblock. Consumer: rpc. */
  get pending(): PendingSnapshot {
    if (this.next && this.ctx.blocks.head.header.number >= this.building.number) return this.next.snapshot;
    return this.hidden ?? this.building.snapshot;
  }

  /**
   * What the pool validates against: the state after the last flashblock (the builder's own,
   * even while blockTime 0 hides it from readers: the pool has already let those transactions go).
   */
  poolState(): PoolStateReader {
    const read = (a: string) => {
      const key = a.toLowerCase();
      return readAccountKeyed(this.building.state, key, hexToBytes(key));
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

  /**
   * At start-up, before `start`: finishes the blocks the journal holds past the head (same
   * timestamp, same transactions in the same order) and seals them, waits until they are on
   * disk, then opens the journal for the next block. A block sealed just before the crash whose
   * batch had not reached the disk comes back with the same hash (same inputs).
   */
  async recover(): Promise<RecoveryOutcome> {
    const journal = this.opts.journal;
    if (!journal) return { replayed: 0 };
    const blocks = await journal.load();
    let replayed = 0;
    let sealed: Block | undefined;
    for (const [i, j] of blocks.entries()) {
      const head = this.ctx.blocks.head;
      if (j.number !== head.header.number + 1n || !equalBytes(j.parentHash, head.hash())) continue;
      // An empty block is only worth sealing when a journaled successor names it as parent.
      if (!j.txs.length && i === blocks.length - 1) continue;
      this.building = this.open(head, j.timestamp);
      const b = this.building;
      for (const raw of j.txs) {
        const tx = createTxFromRLP(raw, { common: b.header.common });
        const r = await b.add(tx);
        if (!r.ok)
          this.opts.onError?.(
            new Error(`journaled transaction ${bytesToHex(tx.hash())} no longer executes: ${r.reason}`),
          );
      }
      await b.publish(j.lastIndex);
      replayed += b.snapshot.txs.length;
      // No journal is opened until every replayed block is on disk: its records are the only copy.
      sealed = await this.sealPending(false);
    }
    await this.ctx.store.flushed();
    await this.openJournal(this.building);
    return { replayed, sealed };
  }

  start(pool: TxPool): void {
    this.pool = pool;
    // Transactions execute as they arrive, between flashblocks: the flashblock itself then only
    // journals and publishes what is already staged, so its deadline is met under load.
    pool.onAdded(() => {
      if (this.mode === 'auto') this.enqueue(() => this.sealEach());
      else if (this.mode === 'interval') this.scheduleStage();
    });
    this.resume();
  }

  /** Starts the current mode's work: the flashblock timer, or sealing what the pool holds. */
  private resume(): void {
    if (this.mode === 'auto')
      // Transactions the pool's journal restored, or that waited while mining was off.
      this.enqueue(() => this.sealEach());
    else if (this.mode === 'interval') {
      this.blockStart = this.now();
      this.arm();
    }
  }

  /** Stops the flashblock timer (mode switches, rewinds). */
  private halt(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.firesAt = Number.POSITIVE_INFINITY;
    this.setBusy(false);
  }

  get sealMode(): SealMode {
    return this.mode;
  }

  /** Seconds between seals in interval mode. */
  get blockTime(): number {
    return this.opts.blockTime;
  }

  /** Runs `fn` on the builder's queue: no flashblock or seal runs meanwhile. */
  onQueue<T>(fn: () => Promise<T>): Promise<T> {
    return this.enqueue(fn);
  }

  /**
   * Switches how blocks are sealed; `blockTime` (seconds) for `interval`. What the block being
   * built has pre-confirmed stays; it is sealed by the new mode. Consumer: builder/devControls.ts.
   */
  setSealMode(mode: SealMode, blockTime?: number): Promise<void> {
    return this.enqueue(async () => {
      this.halt();
      const was = this.mode;
      this.mode = mode;
      if (blockTime !== undefined && blockTime > 0) this.opts.blockTime = blockTime;
      // Only interval mode journals: its first append needs the block's opening record.
      if (mode === 'interval' && was !== 'interval') {
        await this.ctx.store.flushed();
        this.journalOpened = this.openJournal(this.building);
        await this.journalOpened;
      }
      if (this.pool) this.resume();
    });
  }

  /** Every sealed block's changed keys (evm_revert restores them). Consumer: builder/devControls.ts. */
  onSealedChanges(l: SealedChangesListener): () => void {
    this.changesListeners.add(l);
    return () => this.changesListeners.delete(l);
  }

  /**
   * A dev method's state change (anvil_setBalance, ...) in the block being built: shown at the
   * next flashblock (interval mode), at once otherwise, and sealed at once in auto mode (so
   * `latest` shows it when the call returns, as with Anvil). Consumer: builder/devControls.ts.
   */
  edit(change: (s: JournaledState) => Promise<void>): Promise<void> {
    return this.enqueue(async () => {
      await this.building.edit(change);
      this.blockEdits.push(change);
      if (this.mode === 'interval') return;
      await this.flashblock(0);
      if (this.mode === 'auto') await this.sealPending();
    });
  }

  /**
   * Seconds added to the clock of future block timestamps (evm_increaseTime), the block being
   * built included if nothing is pre-confirmed in it yet. Returns the total offset.
   */
  increaseTime(seconds: bigint): bigint {
    this.clockOffsetMs += Number(seconds) * 1000;
    this.enqueue(() => this.reopen()).catch(() => {});
    return BigInt(Math.round(this.clockOffsetMs / 1000));
  }

  /**
   * Header settings for the blocks to come: `timestamp` and `baseFee` for the next one,
   * `gasLimit` and `coinbase` from the next one on. They take the block being built if nothing
   * is pre-confirmed in it yet (it is opened again, dev changes applied again), else the next.
   */
  setNextHeader(h: {
    timestamp?: bigint;
    baseFee?: bigint;
    gasLimit?: bigint;
    coinbase?: Uint8Array;
  }): Promise<void> {
    return this.enqueue(async () => {
      if (h.timestamp !== undefined) this.nextHeader.timestamp = h.timestamp;
      if (h.baseFee !== undefined) this.nextHeader.baseFee = h.baseFee;
      if (h.gasLimit !== undefined) this.sticky.gasLimit = h.gasLimit;
      if (h.coinbase !== undefined) this.sticky.coinbase = h.coinbase;
      await this.reopen();
    });
  }

  /** Opens the block being built again (new header settings), if no transaction is in it yet. */
  private async reopen(): Promise<void> {
    const b = this.building;
    if (b.snapshot.txs.length || b.staged.length || this.staged.length) return;
    const edits = this.blockEdits;
    this.building = this.open(this.ctx.blocks.head);
    this.blockEdits = edits;
    if (this.mode === 'interval' && this.opts.journal) {
      this.journalOpened = this.journalOpened.then(() => this.openJournal(this.building));
      this.journalOpened.catch((e) => this.opts.onError?.(e));
    }
    if (edits.length) {
      for (const change of edits) await this.building.edit(change);
      await this.building.publish(1);
    }
    this.emitFlashblock(this.building.snapshot);
  }

  /**
   * Runs `rewrite` on the builder's queue with production stopped, every sealed block on disk
   * and the flashblock journal emptied (what it held must never be replayed); then opens a new
   * block on whatever head the chain has and resumes. Consumer: builder/devControls.ts
   * (evm_revert, anvil_reset), which rewinds storage inside `rewrite`.
   */
  rewind(rewrite: () => Promise<void>): Promise<void> {
    return this.enqueue(async () => {
      this.halt();
      clearTimeout(this.stageTimer);
      this.stageTimer = undefined;
      await this.journalOpened.catch(() => {});
      for (const u of this.unsynced.splice(0)) await u.catch(() => {});
      await this.ctx.store.flushed();
      await this.opts.journal?.reset();
      await rewrite();
      this.building = this.open(this.ctx.blocks.head);
      this.included.clear();
      this.nextNonce.clear();
      this.clearStaged();
      this.hidden = undefined;
      this.leftToNext = new Set();
      this.warmed = new WeakMap();
      this.blockEdits = [];
      this.journalOpened = Promise.resolve();
      if (this.mode === 'interval') {
        this.journalOpened = this.openJournal(this.building);
        await this.journalOpened;
      }
      this.emitFlashblock(this.building.snapshot);
      if (this.pool) this.resume();
    });
  }

  onSealed(l: SealListener): () => void {
    this.sealListeners.add(l);
    return () => this.sealListeners.delete(l);
  }

  /** Every published flashblock, index 0 (a block opened) included. Consumers: streams. */
  onFlashblock(l: FlashblockListener): () => void {
    this.flashblockListeners.add(l);
    return () => this.flashblockListeners.delete(l);
  }

  /**
   * A timed flashblock once it is built, before it is shown at its deadline: time to prepare what
   * will be sent when it is (streams render their messages here, so that publication only sends).
   * Nothing may show it yet. Not called for flashblocks shown as soon as built.
   */
  onFlashblockBuilt(l: FlashblockListener): () => void {
    this.builtListeners.add(l);
    return () => this.builtListeners.delete(l);
  }

  /**
   * The builder's busy windows: from a timed flashblock's timer to its showing (with the seal,
   * after a block's last one). The RPC server holds new requests meanwhile, so that the thread
   * is the builder's: requests that arrived during the window go to the next flashblock anyway,
   * and without the hold their handling delayed the journal write's completion, the state root
   * and the showing itself by 10-30 ms, often enough to miss the 20 ms goal. A window ends
   * after half an interval at the latest, so a builder that falls behind never starves RPC.
   */
  onBusy(l: BusyListener): () => void {
    this.busyListeners.add(l);
    return () => this.busyListeners.delete(l);
  }

  /**
   * Publishes a last flashblock and seals the pending block now (evm_mine); resolves once it is
   * sealed. `timestamp`: the block's, if it is still open to it (see setNextHeader).
   */
  mine(timestamp?: bigint): Promise<Block> {
    return this.enqueue(async () => {
      if (timestamp !== undefined) {
        this.nextHeader.timestamp = timestamp;
        await this.reopen();
      }
      await this.flashblock();
      const block = await this.sealPending();
      if (this.mode === 'interval' && this.timer) {
        this.blockStart = this.now();
        this.arm();
      }
      return block;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.shownWaiters.splice(0)) w();
    this.firesAt = Number.POSITIVE_INFINITY;
    this.setBusy(false);
    clearTimeout(this.timer);
    clearTimeout(this.stageTimer);
    this.timer = undefined;
    await this.queue.catch(() => {});
    await this.journalOpened.catch(() => {});
    await this.opts.journal?.close();
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => (this.stopped ? (undefined as T) : fn()));
    this.queue = run.catch((e) => this.opts.onError?.(e));
    return run;
  }

  /**
   * Schedules the next flashblock. Its deadline is absolute in the current block; building starts
   * a little before it (as long as recent builds took) and the result is shown at the deadline,
   * so that flashblocks follow each other at the interval whatever one costs to build.
   */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const blockMs = this.opts.blockTime * 1000;
    const nextIndex = this.building.snapshot.index + 1;
    const due = this.blockStart + Math.min(nextIndex * this.opts.flashblockInterval, blockMs);
    const firesAt = Math.max(this.now(), due - this.lead());
    this.firesAt = firesAt;
    if (!this.busy) this.callBusyListeners(false, firesAt);
    this.timer = setTimeout(() => {
      this.firesAt = Number.POSITIVE_INFINITY;
      this.setBusy(true);
      this.tickDue = true;
      this.onTickDue?.();
      this.onTickDue = this.tickDueSignal = undefined;
      const firedAt = this.now();
      this.enqueue(() => this.tick({ showAt: due, firesAt, firedAt }));
    }, firesAt - this.now());
  }

  /**
   * How early a flashblock starts: the 98th percentile of recent builds, or the longest of the
   * last few when load has just risen, plus a margin; at most LEAD_CAP of an interval. Measured
   * 2026-11-25 at 1,000 tx/s: p90 + 2 ms left 6-8 flashblocks a 30 s run more than 20 ms late
   * (a GC pause or a slow build beyond the 90th percentile); p98 + 5 ms left 0-2, and the earlier
   * start cost submit-to-pending nothing measurable (p99 190-194 ms either way). The margin is
   * 20 ms since 2026-11-26 (LEAD_MARGIN_MS).
   */
  private lead(): number {
    const times = this.buildTimes;
    if (!times.length) return 0;
    const cap = this.opts.flashblockInterval * LEAD_CAP;
    return Math.min(cap, Math.ceil(highOf(times)) + LEAD_MARGIN_MS);
  }

  /**
   * When a timed flashblock stops executing transactions: before its deadline by the time its
   * journal write, state root and publication have recently taken, less LATE_ALLOWANCE_MS. What it
   * has not reached goes into the next flashblock (staging passes execute most transactions
   * before it starts). Measured 2026-11-26 at 1,000 tx/s: the transactions a flashblock still had
   * to execute itself (36-181 of them after a seal, the reads of fresh recipients included) took
   * 14-47 ms, the most frequent cause of a late one.
   */
  private stagingStopsAt(showAt: number): number {
    if (!this.finishTimes.length) return showAt;
    return showAt - Math.ceil(highOf(this.finishTimes)) + LATE_ALLOWANCE_MS;
  }

  /** Settles when a flashblock falls due (at once if one is). */
  private whenTickDue(): Promise<void> {
    if (this.tickDue) return Promise.resolve();
    this.tickDueSignal ??= new Promise<void>((resolve) => {
      this.onTickDue = resolve;
    });
    return this.tickDueSignal;
  }

  private async tick(timing: FlashblockTiming): Promise<void> {
    this.tickDue = false;
    try {
      await this.flashblock(Number.POSITIVE_INFINITY, timing);
      const blockMs = this.opts.blockTime * 1000;
      if (this.building.snapshot.index * this.opts.flashblockInterval >= blockMs) {
        await this.sealPending();
        // Deadlines stay on the grid unless the builder fell more than one interval behind.
        const due = this.blockStart + blockMs;
        this.blockStart = this.now() - due > this.opts.flashblockInterval ? this.now() : due;
      }
    } catch (e) {
      this.setBusy(false);
      throw e;
    }
    // Armed while still busy, so that letting input in says when the next window begins.
    this.arm();
    this.setBusy(false);
  }

  private setBusy(busy: boolean): void {
    if (this.busy === busy) return;
    this.busy = busy;
    clearTimeout(this.busyCap);
    if (busy) this.busyCap = setTimeout(() => this.setBusy(false), this.opts.flashblockInterval / 2);
    const armed = Number.isFinite(this.firesAt);
    this.callBusyListeners(busy, !busy && armed ? this.firesAt : undefined);
  }

  private callBusyListeners(busy: boolean, nextAt?: number): void {
    for (const l of this.busyListeners) {
      try {
        l(busy, nextAt);
      } catch (e) {
        this.opts.onError?.(e);
      }
    }
  }

  private open(parent: Block, timestamp?: bigint, warm?: StateTrie): PendingBlock {
    const now = BigInt(Math.floor((this.now() + this.clockOffsetMs) / 1000));
    const next = this.nextHeader;
    let ts = timestamp ?? next.timestamp;
    if (timestamp === undefined && next.timestamp !== undefined && next.timestamp > parent.header.timestamp)
      // Later blocks continue from the timestamp set (Anvil's evm_setNextBlockTimestamp).
      this.clockOffsetMs = Number(next.timestamp) * 1000 - this.now();
    if (ts === undefined || ts <= parent.header.timestamp)
      ts = timestamp ?? (now > parent.header.timestamp ? now : parent.header.timestamp + 1n);
    const overrides: HeaderOverrides = { ...this.sticky, baseFee: next.baseFee };
    this.nextHeader = {};
    this.blockEdits = [];
    return new PendingBlock(this.ctx, parent, ts, this.opts.extraData ?? new Uint8Array(0), warm, overrides);
  }

  private async openJournal(b: PendingBlock): Promise<void> {
    await this.opts.journal?.openBlock({
      number: b.number,
      parentHash: b.parent.hash(),
      timestamp: b.header.timestamp,
    });
  }

  /**
   * Batches pool arrivals into one staging pass a few milliseconds later. The pass first reads
   * what it will touch, outside the queue: a flashblock that falls due meanwhile never waits
   * behind the database (these reads took 5-40 ms under load, now and then).
   */
  private scheduleStage(): void {
    if (this.stageTimer || this.stopped) return;
    // Cleared when the pass runs, not when it is queued: one pass waits in the queue at most.
    this.stageTimer = setTimeout(async () => {
      try {
        await this.warm(this.candidates().list).senders;
      } catch (e) {
        // Only a warm-up: execution reads whatever is still missing itself.
        this.opts.onError?.(e);
      }
      this.enqueue(async () => {
        this.stageTimer = undefined;
        // A flashblock fell due while this pass waited: it stages these itself. Reading the
        // candidates only to give way cost 9-41 ms here, right when the flashblock was due.
        if (this.tickDue) return;
        // What this pass staged goes into the flashblock's state root now, not at its deadline,
        // unless that would run into the next flashblock's timer (the flashblock folds it in then).
        if (!(await this.stage()) || this.tickDue) return;
        // Not while its trie reads are out: a flashblock falling due would wait behind them.
        if (!(await this.pathsReadBeforeTick()) || this.tickDue) return;
        const from = this.now();
        if (this.aheadTimes.length && from + highOf(this.aheadTimes) >= this.firesAt) return;
        await this.building.rootAhead();
        keep(this.aheadTimes, this.now() - from);
      });
    }, STAGE_BATCH_MS);
  }

  /**
   * The pool's best transactions not yet in the block (at most `limit`), in execution order, as
   * far as their gas limits fit in what the block has left (`cut`: one more did not). A pool
   * holding more than a block takes is not read and warmed whole on every pass: with 5,000
   * waiting and a full block, a flashblock spent 0.3-0.8 s warming transactions that could not go
   * in, and the node never caught up.
   */
  private candidates(limit = Number.POSITIVE_INFINITY): { list: PoolTransaction[]; cut: boolean } {
    const list: PoolTransaction[] = [];
    if (!this.pool || limit <= 0) return { list, cut: false };
    let gasLeft = this.building.gasLeft;
    for (const t of this.pool.best(this.building.baseFee, (sender) => this.nextNonce.get(sender))) {
      if (this.included.has(t.hash) || this.stagedHashes.has(t.hash)) continue;
      // The pool's own field: reading `t.tx` would build the transaction object of one that may not fit.
      if (t.gasLimit > gasLeft) return { list, cut: true };
      gasLeft -= t.gasLimit;
      list.push(t);
      if (list.length >= limit) break;
    }
    return { list, cut: false };
  }

  /**
   * Brings what these transactions touch into memory, all at once: their recipients' accounts
   * (fresh recipients are LevelDB misses) and the state-trie paths of recipients and senders.
   * Execution needs only the accounts (`senders` settles with them: each distinct sender's
   * bytes); the trie's reads (a round per level, 6-24 ms under load, up to 50 ms after a seal,
   * against 0-2 ms for the accounts) go on beside it, ready before the flashblock's root update
   * needs them, which shares any still in flight (`paths` settles when they are in). A staging
   * pass awaits only the accounts: awaiting both left the first pass of each block starting
   * just before the flashblock was due, which then executed 120-190 transactions itself, 20-80
   * ms late. Changes nothing.
   */
  private warm(candidates: PoolTransaction[]): {
    senders: Promise<Map<string, Uint8Array>>;
    paths: Promise<unknown>;
  } {
    const recipients: Uint8Array[] = [];
    // Each sender once: a batch holds many transactions of each.
    const senders = new Map<string, Uint8Array>();
    // The trie paths once per block: a transaction is a candidate of its pass's warm-up, of the
    // pass itself and of the flashblocks until one stages it (each path costs a keccak and a walk).
    const paths = new Map<string, Uint8Array>();
    const fresh: PoolTransaction[] = [];
    const reading = new Set<Promise<void>>();
    for (const t of candidates) {
      const to = t.tx.to?.bytes;
      let sender = senders.get(t.sender);
      if (!sender) {
        sender = hexToBytes(t.sender);
        senders.set(t.sender, sender);
      }
      if (to) recipients.push(to);
      const read = this.warmed.get(t);
      if (read) {
        reading.add(read);
        continue;
      }
      fresh.push(t);
      if (to) paths.set(bytesToHex(to), to);
      paths.set(t.sender, sender);
    }
    if (paths.size) {
      const read = this.building.warmRoot([...paths.values()]).catch((e) => {
        // Only a warm-up: the root update reads whatever is still missing itself.
        if (!this.stopped) this.opts.onError?.(e);
      });
      for (const t of fresh) this.warmed.set(t, read);
      reading.add(read);
    }
    const accounts = recipients.length ? this.ctx.flat.prefetch(recipients) : Promise.resolve();
    return { senders: accounts.then(() => senders), paths: Promise.all(reading) };
  }

  /**
   * Settles true once the trie paths of every staged transaction are read (`warm`), false if a
   * flashblock falls due first.
   */
  private pathsReadBeforeTick(): Promise<boolean> {
    const reads = new Set<Promise<void>>();
    for (const t of this.staged) {
      const read = this.warmed.get(t);
      if (read) reads.add(read);
    }
    return Promise.race([Promise.all(reads).then(() => true), this.whenTickDue().then(() => false)]);
  }

  /**
   * Executes the pool's best transactions not yet in the block (at most `limit`) into the
   * flashblock being built. Nothing staged is visible until `flashblock()` journals and
   * publishes it. Returns how many were staged.
   */
  private async stage(limit = Number.POSITIVE_INFINITY, inFlashblock?: InFlashblock): Promise<number> {
    let total = 0;
    for (;;) {
      const { staged, cut } = await this.stageBatch(limit - total, inFlashblock);
      total += staged;
      // Transactions use less gas than their limits: a flashblock takes what fits after them too.
      if (!inFlashblock || !cut || staged === 0) return total;
    }
  }

  /** One batch of `stage`: the candidates that fit in the block's gas as it is now. */
  private async stageBatch(
    limit: number,
    inFlashblock: InFlashblock | undefined,
  ): Promise<{ staged: number; cut: boolean }> {
    const pool = this.pool;
    if (!pool) return { staged: 0, cut: false };
    const b = this.building;
    const { list: candidates, cut } = this.candidates(limit);
    // Mostly in memory already (the pass's warm-up); what arrived since, or what a seal evicted,
    // is read here. A flashblock falling due meanwhile goes first: it stages these itself.
    const { senders: warmed, paths } = this.warm(candidates);
    // A staging pass gives way to a flashblock falling due. A flashblock stops at its time, and
    // stages only what its state root can take without reading the database: trie reads it
    // would wait for made a flashblock with 29 of them 22 ms late (44 ms for the reads).
    const interrupted = !inFlashblock
      ? await Promise.race([warmed.then(() => false), this.whenTickDue().then(() => true)])
      : !(await settlesBefore(Promise.all([warmed, paths]), inFlashblock.stopAt - this.now()));
    // A flashblock out of time still waits for what the one before left to it.
    if (interrupted && !(inFlashblock && candidates.some((t) => inFlashblock.forced.has(t.hash)))) {
      warmed.catch(() => {}); // only a warm-up; whoever stages these reads again
      if (inFlashblock) for (const t of candidates) inFlashblock.left.add(t.hash);
      return { staged: 0, cut: false };
    }
    const senders = await warmed;
    let staged = 0;
    let sinceYield = 0;
    for (const t of candidates) {
      // Execution on the in-memory state rarely awaits I/O: a staging pass yields so RPC keeps
      // answering. A flashblock does not: it is due, and each yield let a burst of RPC work in
      // (113 transactions left to a flashblock took 61 ms, twice their execution time).
      // Near the next flashblock's timer it yields at every transaction: the timer fires on time.
      if (!inFlashblock && (++sinceYield === 16 || this.now() >= this.firesAt - STAGE_NEAR_TIMER_MS)) {
        sinceYield = 0;
        await nextTurn();
        // A flashblock is due: it stages the rest itself, on time.
        if (this.tickDue) return { staged, cut };
      }
      // A flashblock out of time leaves the rest to the next one.
      if (inFlashblock && !inFlashblock.forced.has(t.hash) && this.now() >= inFlashblock.stopAt) {
        inFlashblock.left.add(t.hash);
        continue;
      }
      const r = await b.add(t.tx, { raw: t.raw, sender: senders.get(t.sender)!, hash: hexToBytes(t.hash) });
      if (r.ok) {
        this.staged.push(t);
        this.stagedHashes.add(t.hash);
        this.nextNonce.set(t.sender, t.nonce + 1n);
        staged++;
      } else if (!r.retry) pool.onRejected(t.hash, r.reason);
      else return { staged, cut: false };
    }
    return { staged, cut };
  }

  private clearStaged(): void {
    this.staged = [];
    this.stagedHashes.clear();
  }

  /**
   * One flashblock: whatever arrived since the last staging pass is staged too, as far as time
   * allows if it is shown at a deadline (`stagingStopsAt`), then the staged transactions go to the
   * journal and become visible — at `timing.showAt` if the build finished early. Returns how
   * many were pre-confirmed.
   */
  private async flashblock(limit = Number.POSITIVE_INFINITY, timing?: FlashblockTiming): Promise<number> {
    const started = this.now();
    const pool = this.pool;
    const b = this.building;
    // A flashblock shown at a deadline stages what time allows, and whatever the one before left
    // to it: no transaction is left twice, and a builder that falls behind still catches up.
    const own: InFlashblock = {
      stopAt: timing
        ? Math.max(this.stagingStopsAt(timing.showAt), started + STAGE_MIN_MS)
        : Number.POSITIVE_INFINITY,
      forced: this.leftToNext,
      left: new Set(),
    };
    const stagedHere = await this.stage(limit - this.staged.length, own);
    this.leftToNext = own.left;
    const stageMs = this.now() - started;
    const done = this.staged;
    const index = b.snapshot.index + 1;
    let prepared: PreparedRoot | undefined;
    let journalMs: number | undefined;
    let rootMs: number | undefined;
    if (done.length && this.opts.journal && this.mode === 'interval') {
      const from = this.now();
      // One synchronous write (the journal's files are O_DSYNC), made once the state root's
      // computation has begun (it runs in the microtask after): the root's trie reads proceed
      // in the thread pool while the write blocks this thread.
      const journal = this.opts.journal;
      const raws = b.staged.map((t) => t.raw);
      // The block's opening record first (written behind the seal; long done by now, as a rule).
      const journaled = this.journalOpened
        .then(() => journal.append(index, raws))
        .then(() => {
          journalMs = this.now() - from;
        });
      try {
        const rooted = b.prepare().then((root) => {
          rootMs = this.now() - from;
          return root;
        });
        // Both settle before either error is handled: none is left unobserved.
        const [j, r] = await Promise.allSettled([journaled, rooted]);
        if (j.status === 'rejected') throw j.reason;
        this.metrics.journalAppend.observe((journalMs ?? 0) / 1000);
        // A root that failed (a trie read) is computed again by publish.
        if (r.status === 'fulfilled') prepared = r.value;
      } catch (e) {
        // Not on disk, so never shown: the transactions stay in the pool for the next flashblock.
        b.discard();
        this.clearStaged();
        // Only what was pre-confirmed stays executed.
        this.nextNonce.clear();
        for (const t of this.included.values())
          if ((this.nextNonce.get(t.sender) ?? 0n) <= t.nonce) this.nextNonce.set(t.sender, t.nonce + 1n);
        this.opts.onError?.(e);
        return 0;
      }
    }
    // Readers keep the previous flashblock until this one is due.
    if (timing) this.hidden = b.snapshot;
    let snapshot: PendingSnapshot;
    let built = started;
    try {
      snapshot = await b.publish(index, prepared);
      this.clearStaged();
      built = this.now();
      if (timing) {
        keep(this.buildTimes, built - Math.min(timing.firedAt, started));
        if (done.length) keep(this.finishTimes, built - started - stageMs);
        if (timing.showAt > built) {
          for (const l of this.builtListeners) this.callListener(l, snapshot);
          const ready = this.now();
          if (timing.showAt > ready) await sleep(timing.showAt - ready);
        }
      }
      this.metrics.flashblockBuild.observe((built - started) / 1000);
    } finally {
      if (timing) this.hidden = undefined;
    }
    const publishedAt = this.now();
    this.emitFlashblock(snapshot);
    const m = this.metrics;
    if (timing) {
      const lateMs = Math.max(0, publishedAt - timing.showAt);
      m.flashblockLateness.observe(lateMs / 1000);
      if (lateMs > this.opts.flashblockInterval / 10)
        this.opts.onLate?.({
          block: b.number,
          index,
          lateMs,
          behindMs: Math.max(0, timing.firesAt - timing.showAt),
          timerMs: Math.max(0, timing.firedAt - timing.firesAt),
          queuedMs: Math.max(0, started - timing.firedAt),
          buildMs: built - started,
          stageMs,
          stagedHere,
          journalMs,
          rootMs,
          wakeMs: Math.max(0, publishedAt - Math.max(timing.showAt, built)),
        });
    }
    m.flashblocks++;
    m.flashblockTxs.observe(done.length);
    for (const t of done) m.submitToPending.observe(Math.max(0, publishedAt - t.receivedAt) / 1000);
    for (const t of done) this.included.set(t.hash, t);
    if (done.length && pool) await pool.onIncluded(done);
    return done.length;
  }

  /**
   * Seals the published transactions. The head moves at once; the block's batch reaches the
   * disk in the background while the next block is built (its flashblock records stay in the
   * journal until then). `openJournal` false: recovery, which opens it once all is on disk.
   */
  private async sealPending(openJournal = true): Promise<Block> {
    const started = this.now();
    const { block, txs, commit, trie, changed } = await this.building.prepareSeal();
    for (const l of this.changesListeners) {
      try {
        l(block, changed);
      } catch (e) {
        this.opts.onError?.(e);
      }
    }
    // The warm trie keeps every node the chain touched: now and then keep only its top levels.
    if (block.header.number % WARM_TRIE_EVICT_EVERY === 0n) trie.evict(WARM_TRIE_KEEP_DEPTH);
    const next = this.open(block, undefined, trie);
    this.next = next;
    let durable: Promise<void>;
    try {
      ({ durable } = await commit(this.timer ? this.nextShown() : undefined));
    } finally {
      this.next = undefined;
    }
    durable.catch((e) => this.opts.onError?.(e));
    this.unsynced.push(durable);
    const before: Promise<void> =
      (this.unsynced.length >= FlashblockJournal.FILES ? this.unsynced.shift() : undefined) ??
      Promise.resolve();
    this.building = next;
    this.warmed = new WeakMap();
    this.hidden = undefined; // with the head: never the sealed block's stale view
    this.included.clear();
    this.nextNonce.clear();
    this.clearStaged();
    // Reads see the block from the moment the head moved, and so do subscribers: a client that
    // got a receipt and then polls eth_getFilterChanges must find its block (under load the
    // batch below took long enough for such a poll to come back empty).
    for (const l of this.sealListeners) {
      try {
        l(block, txs);
      } catch (e) {
        this.opts.onError?.(e);
      }
    }
    const journaled = this.opts.journal !== undefined && this.mode === 'interval';
    // Without a journal (blockTime 0 seals each transaction at once, never pre-confirming) the
    // batch is the only copy: the next block is built only once it is on disk.
    if (!journaled) await durable;
    else if (openJournal) {
      // The next block's journal file held an earlier block: that one must be on disk before the
      // file starts over. Behind the seal: only the next block's first append waits for it. A
      // failure fails those appends, so nothing of that block is shown.
      const waitFrom = this.now();
      this.journalOpened = before.then(async () => {
        this.metrics.sealDurableWait.observe((this.now() - waitFrom) / 1000);
        await this.openJournal(next);
      });
      this.journalOpened.catch((e) => this.opts.onError?.(e));
    }
    this.metrics.seal.observe((this.now() - started) / 1000);
    this.metrics.blocks++;
    this.metrics.flashblocks++;
    this.emitFlashblock(next.snapshot);
    return block;
  }

  private emitFlashblock(s: PendingSnapshot): void {
    for (const l of this.flashblockListeners) this.callListener(l, s);
    if (s.index >= 1) for (const w of this.shownWaiters.splice(0)) w();
  }

  /**
   * Settles once the next block's first pre-confirmation is shown (two intervals at most): when
   * the sealed block's batch may be filled. Filled right after the seal, its ~10,000 puts (12.7 ms
   * of the 110 ms after each seal, measured 2026-11-26) ran while the staging passes were
   * catching up with what arrived during the seal, and index 1 was the flashblock that left
   * transactions to the next. The block stays readable meanwhile (ChainStore's overlay) and its
   * flashblock records stay in the journal until it is on disk.
   */
  private nextShown(): Promise<void> {
    return new Promise<void>((resolve) => {
      const cap = setTimeout(resolve, 2 * this.opts.flashblockInterval);
      cap.unref();
      this.shownWaiters.push(() => {
        clearTimeout(cap);
        resolve();
      });
    });
  }

  private callListener(l: FlashblockListener, s: PendingSnapshot): void {
    try {
      l(s);
    } catch (e) {
      this.opts.onError?.(e);
    }
  }

  /**
   * blockTime 0: every executable transaction gets a block of its own, nothing is journaled,
   * and `pending` keeps showing the empty block until the head moves: automine clients (viem's
   * waitForTransactionReceipt, ethers' wait) must never get the receipt before its block.
   */
  private async sealEach(): Promise<void> {
    while (!this.stopped) {
      this.hidden = this.building.snapshot;
      try {
        if ((await this.flashblock(1)) === 0) return;
        await this.sealPending();
      } finally {
        this.hidden = undefined;
      }
    }
  }
}

/** Adds a recent time, keeping BUILD_TIMES_KEPT. */
function keep(times: number[], ms: number): void {
  times.push(ms);
  if (times.length > BUILD_TIMES_KEPT) times.shift();
}

/** The LEAD_PERCENTILE of recent times, or the longest of the last few when they have just risen. */
function highOf(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  const high = sorted[Math.floor(sorted.length * LEAD_PERCENTILE)] ?? 0;
  return Math.max(high, ...times.slice(-5));
}

/** Whether `p` settles within `ms` (false at once if `ms` has passed). A rejection counts as settled. */
async function settlesBefore(p: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  const settled = p.then(
    () => true,
    () => true,
  );
  if (!Number.isFinite(ms)) return settled;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([settled, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
