/**
 * Block production as flashblocks: the coordinator of the builder's parts, deciding when each
 * runs. A block opens (flashblock 0, no transactions) the moment its parent is sealed; pool
 * arrivals are staged as they come (invisible); every `flashblockInterval` what is staged is
 * journaled and shown as flashblock 1, 2, ...; at the block time the last is shown and the block
 * is sealed with exactly the shown transactions, in order. Invariants: a flashblock reaches the
 * journal before it is shown (`recover()` finishes interrupted blocks at the next start); all
 * builder work runs on one serial queue, so a seal never interleaves with a flashblock.
 *
 *   pool.onAdded ─> stagingPasses.ts ─> stager.ts (PendingBlock.add, working layer)
 *   flashblockTimer.ts (schedule.ts: deadline; busy) ─> queue: flashblockAttempt.ts (stage the
 *       rest, and arrivals until the staging stop; sealer.ts journal write, publish, show at the
 *       deadline) ─> pool.onIncluded
 *   last flashblock ─> sealer.ts seal (head moves) ─> 'sealed' ─> journal rotation ─> next block
 *       (blockOpener.ts: timestamp, dev header settings) ─> 'flashblock' (index 0)
 *
 * Also: events.ts (who is told), recovery.ts (restart), tickSignal.ts (a flashblock fell due),
 * poolState.ts (what the pool validates against), producerOptions.ts (settings, seal modes),
 * following.ts (a follower's: its sequencer's flashblocks and sealed blocks, through the same
 * PendingBlock and seal).
 *
 * One file (over 400 lines): it owns the queue and every change of the block being built; each
 * part it coordinates is a file of its own, and what is left here is when each runs.
 */
import type { Block } from '@ethereumjs/block';
import type { ChainContext } from '../execution/chainContext.js';
import type { PoolStateReader, TxPool } from '../txpool/types.js';
import { BlockOpener, type NextHeader, type StateEdit } from './blockOpener.js';
import {
  BuilderEvents,
  type BusyListener,
  type BuiltListener,
  type FlashblockListener,
  type SealedChangesListener,
  type SealListener,
} from './events.js';
import {
  attemptFlashblock,
  type FlashblockAttemptDeps,
  type FlashblockOutcome,
} from './flashblockAttempt.js';
import { type FlashblockTiming, FlashblockTimer } from './flashblockTimer.js';
import type { FlashblockVerdict, FollowedFlashblock, FollowedTx } from './followedBlocks.js';
import { Following } from './following.js';
import { BuilderMetrics } from './metrics.js';
import type { PendingBlock, PendingSnapshot } from './pendingBlock.js';
import { poolStateOf } from './poolState.js';
import { type RecoveryOutcome, recoverFromJournal } from './recovery.js';
import { FlashblockSchedule } from './schedule.js';
import { Sealer } from './sealer.js';
import { Stager } from './stager.js';
import { StagingPasses } from './stagingPasses.js';
import type { ProducerOptions, SealMode } from './producerOptions.js';
import { TickSignal } from './tickSignal.js';

export class BlockProducer {
  private building: PendingBlock;
  private queue: Promise<unknown> = Promise.resolve();
  private stopped = false;
  private pool?: TxPool;
  /**
   * What `pending` shows while the builder is ahead of readers: a flashblock built early and not
   * yet due, or (blockTime 0) a transaction executed and not yet sealed.
   */
  private hidden?: PendingSnapshot;
  /** Build time, transactions per flashblock, submit-to-pending, seal time (GET /metrics). */
  readonly metrics = new BuilderMetrics();
  private readonly schedule: FlashblockSchedule;
  private readonly tick = new TickSignal();
  private readonly events: BuilderEvents;
  private readonly timer: FlashblockTimer;
  private readonly stager: Stager;
  private readonly passes: StagingPasses;
  private readonly sealer: Sealer;
  private readonly opener: BlockOpener;
  private readonly attempt: FlashblockAttemptDeps;
  private readonly following: Following;
  private mode: SealMode;

  constructor(
    private readonly ctx: ChainContext,
    private readonly opts: ProducerOptions,
  ) {
    const now = () => this.now();
    const { onError, flashblockInterval: intervalMs } = opts;
    const stopped = () => this.stopped;
    const building = () => this.building;
    const pool = () => this.pool;
    this.mode = !opts.mining ? 'manual' : opts.blockTime === 0 ? 'auto' : 'interval';
    this.events = new BuilderEvents(onError);
    // The schedule reads the options object: setSealMode changes its blockTime.
    this.schedule = new FlashblockSchedule(opts);
    const { schedule, tick, events, metrics } = this;
    const fired = (timing: FlashblockTiming) => this.enqueue(() => this.onTick(timing));
    this.timer = new FlashblockTimer({ schedule, tick, events, now, intervalMs, fired });
    const journaling = () => this.mode === 'interval';
    const copiedElsewhere = opts.following;
    this.sealer = new Sealer({ journal: opts.journal, journaling, metrics, now, onError, copiedElsewhere });
    this.stager = new Stager({ flat: ctx.flat, pool, building, tick, now, stopped, onError });
    const { stager, sealer } = this;
    const enqueue = (fn: () => Promise<void>) => this.enqueue(fn);
    this.passes = new StagingPasses({ stager, schedule, tick, building, enqueue, now, stopped, onError });
    const hide = (snapshot?: PendingSnapshot) => (this.hidden = snapshot);
    const report = { metrics, intervalMs, onLate: opts.onLate, onError };
    // Input flows while a flashblock takes arrivals, until its staging stop (decision 0310).
    const letInputIn = (until: number) => this.timer.setBusy(false, until);
    const holdInput = () => this.timer.setBusy(true);
    this.attempt = { stager, sealer, schedule, events, pool, hide, now, letInputIn, holdInput, ...report };
    this.opener = new BlockOpener(ctx, now, opts.extraData);
    this.building = this.opener.open(ctx.blocks.head);
    const setBuilding = (b: PendingBlock) => this.replaceBuilding(b);
    const [seal, openFresh] = [
      (showNext: boolean) => this.sealPending(true, showNext),
      (parent: Block) => this.openFresh(parent),
    ];
    const { onDropped } = opts;
    this.following = new Following({
      ctx,
      events,
      metrics,
      building,
      setBuilding,
      seal,
      openFresh,
      onDropped,
    });
  }

  /** What `pending` reads see: the block being built as of its last flashblock. Consumer: rpc. */
  get pending(): PendingSnapshot {
    const opening = this.sealer.opening;
    if (opening && this.ctx.blocks.head.header.number >= this.building.number) return opening.snapshot;
    return this.hidden ?? this.building.snapshot;
  }

  /** What the pool validates against (poolState.ts). */
  poolState(): PoolStateReader {
    return poolStateOf(() => this.building);
  }

  /**
   * At start-up, before `start`: seals the blocks the journal holds past the head
   * (recovery.ts), waits until they are on disk, then opens the journal for the next block.
   */
  recover(): Promise<RecoveryOutcome> {
    return recoverFromJournal(this.opts.journal, {
      head: () => this.ctx.blocks.head,
      openAt: (parent, timestamp) => (this.building = this.opener.open(parent, timestamp)),
      seal: () => this.sealPending(false),
      flushed: () => this.ctx.store.flushed(),
      openJournal: () => this.sealer.openJournal(this.building),
      onError: this.opts.onError,
    });
  }

  start(pool: TxPool): void {
    this.pool = pool;
    // Transactions execute as they arrive, between flashblocks: the flashblock itself then only
    // journals and publishes what is already staged, so its deadline is met under load.
    pool.onAdded(() => {
      if (this.mode === 'auto') this.enqueue(() => this.sealEach());
      else if (this.mode === 'interval') {
        this.passes.schedule();
        // A flashblock before its staging stop takes it at once (flashblockAttempt.ts).
        this.stager.arrived();
      }
    });
    this.resume();
  }

  /** Starts the current mode's work: the flashblock timer, or sealing what the pool holds. */
  private resume(): void {
    if (this.mode === 'auto')
      // Transactions the pool's journal restored, or that waited while mining was off.
      this.enqueue(() => this.sealEach());
    else if (this.mode === 'interval') {
      this.schedule.startBlock(this.now());
      this.arm();
    }
  }

  /**
   * Whether what leaves the pool now is on disk before anyone sees it: flashblocks are journaled
   * (interval mode with a journal). The pool journal then skips what was pre-confirmed
   * (txpool/journal.ts, decision 0490).
   */
  get preconfirmationsJournaled(): boolean {
    return this.sealer.journaled;
  }

  get sealMode(): SealMode {
    return this.mode;
  }

  /** Seconds between seals in interval mode. */
  get blockTime(): number {
    return this.opts.blockTime;
  }

  /**
   * Switches how blocks are sealed; `blockTime` (seconds) for `interval`. What the block being
   * built has pre-confirmed stays; the new mode seals it. Consumer: builder/devControls.ts.
   */
  setSealMode(mode: SealMode, blockTime?: number): Promise<void> {
    return this.enqueue(async () => {
      this.timer.halt();
      const was = this.mode;
      this.mode = mode;
      if (blockTime !== undefined && blockTime > 0) this.opts.blockTime = blockTime;
      // Only interval mode journals: its first append needs the block's opening record.
      if (mode === 'interval' && was !== 'interval') {
        await this.ctx.store.flushed();
        await this.sealer.openJournal(this.building);
      }
      if (this.pool) this.resume();
    });
  }

  /**
   * A dev method's state change (anvil_setBalance, ...) in the block being built: shown at the
   * next flashblock (interval mode), at once otherwise, and sealed at once in auto mode (so
   * `latest` shows it when the call returns, as with Anvil). Consumer: builder/devControls.ts.
   */
  edit(change: StateEdit): Promise<void> {
    return this.enqueue(async () => {
      await this.building.edit(change);
      this.opener.edited(change);
      if (this.mode === 'interval') return;
      await this.flashblock(0);
      if (this.mode === 'auto') await this.sealPending();
    });
  }

  /** evm_increaseTime: the block being built takes it if nothing is in it yet. Returns the total (s). */
  increaseTime(seconds: bigint): bigint {
    const total = this.opener.increaseTime(seconds);
    this.enqueue(() => this.reopen()).catch(() => {});
    return total;
  }

  /** Header settings (blockOpener.ts), from the block being built on if nothing is in it yet. */
  setNextHeader(h: NextHeader): Promise<void> {
    return this.enqueue(async () => {
      this.opener.set(h);
      await this.reopen();
    });
  }

  /** anvil_setBlockTimestampInterval / remove (blockOpener.ts); returns whether one was set. */
  setTimestampInterval(seconds?: bigint): Promise<boolean> {
    return this.enqueue(async () => {
      const had = this.opener.setTimestampInterval(seconds);
      await this.reopen();
      return had;
    });
  }

  /** Opens the block being built again (new header settings), if no transaction is in it yet. */
  private async reopen(): Promise<void> {
    const b = this.building;
    if (b.snapshot.txs.length || b.staged.length || this.stager.staged.length) return;
    this.building = this.opener.reopen(this.ctx.blocks.head);
    this.sealer.reopened(this.building);
    await this.opener.replayEdits(this.building);
    this.events.emit('flashblock', this.building.snapshot);
  }

  /**
   * Runs `rewrite` on the builder's queue with production stopped, every sealed block on disk
   * and a reset in the flashblock journal (what it held must never be replayed); then opens a new
   * block on whatever head the chain has and resumes. Consumer: builder/devControls.ts
   * (evm_revert, anvil_reset), which rewinds storage inside `rewrite`. `clock`: `head`, the
   * clock of block timestamps goes back to the new head's (Anvil's evm_revert); `wall`, to the
   * wall clock (anvil_reset).
   */
  rewind(rewrite: () => Promise<void>, clock: 'head' | 'wall'): Promise<void> {
    return this.enqueue(async () => {
      this.timer.halt();
      this.passes.cancel();
      await this.sealer.rewind();
      await this.ctx.store.flushed();
      await rewrite();
      this.opener.setClock(clock === 'head' ? this.ctx.blocks.head.header.timestamp : undefined);
      this.openFresh(this.ctx.blocks.head);
      if (this.sealer.journaled) await this.sealer.openJournal(this.building);
      this.events.emit('flashblock', this.building.snapshot);
      if (this.pool) this.resume();
    });
  }

  /** A follower's: its sequencer's sealed block (following.ts). Consumer: follower/blockFollower.ts. */
  importSealed(block: Block, txs?: readonly FollowedTx[]): Promise<void> {
    return this.followerOnly(() => this.following.importSealed(block, txs));
  }

  /** A follower's: its sequencer's next flashblock (following.ts). Consumer: follower/flashblockFollower.ts. */
  applyFlashblock(fb: FollowedFlashblock): Promise<FlashblockVerdict> {
    return this.followerOnly(() => this.following.applyFlashblock(fb));
  }

  /** A follower's: reads what a flashblock will touch ahead of its turn on the queue. */
  warmFollowed(fb: FollowedFlashblock): void {
    this.following.warm(fb);
  }

  private followerOnly<T>(fn: () => Promise<T>): Promise<T> {
    if (this.opts.mining)
      return Promise.reject(new Error('for followers only: this node seals its own blocks'));
    return this.enqueue(fn);
  }

  // Listeners (events.ts says when each event fires); each returns its unsubscribe.
  onSealed(l: SealListener): () => void {
    return this.events.on('sealed', l);
  }
  onFlashblock(l: FlashblockListener): () => void {
    return this.events.on('flashblock', l);
  }
  onFlashblockBuilt(l: BuiltListener): () => void {
    return this.events.on('built', l);
  }
  onBusy(l: BusyListener): () => void {
    return this.events.on('busy', l);
  }
  onSealedChanges(l: SealedChangesListener): () => void {
    return this.events.on('sealedChanges', l);
  }

  /**
   * Publishes a last flashblock and seals the pending block now; the next block's flashblocks
   * count from then. Consumers: tests, evm_mine-like dev methods.
   */
  mine(timestamp?: bigint): Promise<Block> {
    return this.enqueue(async () => {
      if (timestamp !== undefined) {
        this.opener.set({ timestamp });
        await this.reopen();
      }
      await this.flashblock();
      const block = await this.sealPending();
      if (this.mode === 'interval' && this.timer.running) {
        this.schedule.startBlock(this.now());
        this.arm();
      }
      return block;
    });
  }

  /**
   * Runs `fn` on the builder's queue: no flashblock or seal runs meanwhile, and what it changes
   * is seen by the next flashblock. Consumers: dev methods that change the block being built.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.enqueue(fn);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.events.releaseWaiters();
    this.timer.halt();
    this.passes.cancel();
    await this.queue.catch(() => {});
    await this.sealer.close();
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => (this.stopped ? (undefined as T) : fn()));
    this.queue = run.catch((e) => this.opts.onError?.(e));
    return run;
  }

  /** Schedules the block's next flashblock (flashblockTimer.ts). */
  private arm(): void {
    if (!this.stopped) this.timer.arm(this.building.snapshot.index + 1);
  }

  private async onTick(timing: FlashblockTiming): Promise<void> {
    this.tick.taken();
    try {
      await this.flashblock(Number.POSITIVE_INFINITY, timing);
      if (this.schedule.isLast(this.building.snapshot.index)) {
        await this.sealPending();
        this.schedule.sealed(this.now());
      }
    } catch (e) {
      this.timer.setBusy(false);
      throw e;
    }
    // Armed while still busy, so that letting input in says when the next window begins.
    this.arm();
    this.timer.setBusy(false);
  }

  /** Opens a new block on `parent` outside a seal (rewinds, imports): nothing staged carries over. */
  private openFresh(parent: Block): void {
    this.replaceBuilding(this.opener.open(parent));
  }
  private replaceBuilding(b: PendingBlock): void {
    this.building = b;
    this.stager.blockSealed();
    this.hidden = undefined;
  }

  /** One flashblock of the block being built (flashblockAttempt.ts). */
  private flashblock(
    limit = Number.POSITIVE_INFINITY,
    timing?: FlashblockTiming,
  ): Promise<FlashblockOutcome> {
    return attemptFlashblock(this.attempt, this.building, limit, timing);
  }

  /**
   * Seals the published transactions (sealer.ts) and opens the next block on them. `openJournal`
   * false: recovery, which opens it once all is on disk. `showNext` false: a follower whose
   * sequencer's next block is about to replace it (its flashblock 0 is here).
   */
  private async sealPending(openJournal = true, showNext = true): Promise<Block> {
    const started = this.now();
    const sealed = await this.sealer.seal(
      this.building,
      (parent, warm) => {
        // A follower's next block opens on the same trie once its flashblock 0 comes.
        this.following.warmTrie = warm;
        return this.opener.open(parent, undefined, warm);
      },
      // The sealed block's batch is filled once the next block's first pre-confirmation is shown
      // (two intervals at most), not while the staging passes catch up after the seal.
      this.timer.running ? () => this.events.nextShown(2 * this.opts.flashblockInterval) : undefined,
    );
    this.building = sealed.next;
    this.stager.blockSealed();
    this.events.emit('sealedChanges', sealed.block, sealed.changed);
    this.hidden = undefined; // with the head: never the sealed block's stale view
    // Reads see the block from the moment the head moved, and so do subscribers: a client that
    // got a receipt and then polls eth_getFilterChanges must find its block.
    this.events.emit('sealed', sealed.block, sealed.txs);
    await this.sealer.afterSeal(sealed, openJournal);
    this.metrics.seal.observe((this.now() - started) / 1000);
    this.metrics.blocks.inc();
    this.metrics.flashblocks.inc();
    if (showNext) this.events.emit('flashblock', sealed.next.snapshot);
    return sealed.block;
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
        if ((await this.flashblock(1)).kind !== 'published') return;
        await this.sealPending();
      } finally {
        this.hidden = undefined;
      }
    }
  }
}
