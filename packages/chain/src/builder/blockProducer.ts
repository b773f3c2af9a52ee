/**
 * Block production as flashblocks: the coordinator of the builder's parts. A block opens
 * (flashblock index 0, no transactions) the moment its parent is sealed; pool arrivals are
 * executed into the flashblock being built as they come (staged, in 10 ms batches, invisible);
 * every `flashblockInterval` whatever is staged is journaled and published as flashblock 1, 2,
 * ...; at the block time the last flashblock is published and the block is sealed with exactly
 * the published transactions, in order. Invariants: a flashblock reaches the journal before it
 * is shown (a crash loses nothing anyone has seen; `recover()` finishes the interrupted blocks at
 * the next start); all builder work runs on one serial queue, so a seal never interleaves with
 * a flashblock.
 *
 *   pool.onAdded ─> (10 ms) queue: Stager.stage ─> PendingBlock.add (working layer) ─> rootAhead
 *   timer (FlashblockSchedule.deadline) ─> busy (RPC input held) ─> queue: flashblock(k)
 *       Stager.stage the rest (until the staging stop) ─> Sealer.journalFlashblock (journal
 *       append beside the state root) ─> PendingBlock.publish ─> 'built' ─> at the deadline:
 *       pending reads switch ─> 'flashblock' ─> pool.onIncluded ─> not busy
 *   last flashblock of the block ─> Sealer.seal (head moves) ─> 'sealed' (newHeads, logs)
 *       ─> Sealer.afterSeal (journal rotation, behind the seal) ─> 'flashblock' (index 0)
 *
 * Parts: schedule.ts (when), stager.ts (what), sealer.ts (durability), recovery.ts (restart),
 * events.ts (who is told), tickSignal.ts (a flashblock fell due).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Block } from '@ethereumjs/block';
import type { ChainContext } from '../execution/chainContext.js';
import { checkHeader, importBlock } from '../execution/importBlock.js';
import { bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.js';
import { readAccountKeyed } from '../state/stateReader.js';
import type { StateTrie } from '../state/trieAdapter.js';
import type { PoolStateReader, PoolTransaction, TxPool } from '../txpool/types.js';
import type { JournaledState } from '../state/journaledState.js';
import {
  BuilderEvents,
  type BusyListener,
  type FlashblockListener,
  type SealedChangesListener,
  type SealListener,
} from './events.js';
import type { FlashblockJournal } from './flashblockJournal.js';
import {
  addAll,
  agreement,
  baseOf,
  type FlashblockVerdict,
  type FollowedFlashblock,
  type FollowedState,
  type FollowedTx,
  openFollowed,
  sameBase,
} from './followedBlocks.js';
import type { LateFlashblock } from './lateFlashblocks.js';
import { BuilderMetrics } from './metrics.js';
import { type HeaderOverrides, PendingBlock, type PendingSnapshot } from './pendingBlock.js';
import { type RecoveryOutcome, replayJournal } from './recovery.js';
import { FlashblockSchedule } from './schedule.js';
import { type JournaledFlashblock, Sealer } from './sealer.js';
import { Stager } from './stager.js';
import { TickSignal } from './tickSignal.js';

export type { BusyListener, FlashblockListener, SealedChangesListener, SealListener } from './events.js';
export type { LateFlashblock } from './lateFlashblocks.js';
export type { FlashblockVerdict, FollowedBase, FollowedFlashblock, FollowedTx } from './followedBlocks.js';
export type { RecoveryOutcome } from './recovery.js';

/** How long pool arrivals are gathered before they are executed into the flashblock being built. */
const STAGE_BATCH_MS = 10;

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
  /** A follower dropped flashblocks of its sequencer (contradicted or missed), and why. */
  onDropped?: (drop: DroppedFlashblocks) => void;
}

/** Flashblocks a follower dropped: never shown, or no longer shown. */
export interface DroppedFlashblocks {
  block: bigint;
  /** How many (the one refused, or those the sealed block contradicted). */
  count: number;
  reason: string;
}

/**
 * What one flashblock attempt came to: `published` with transactions, `empty` (published with
 * none: the same partial block under the next index), or `discarded` (its journal write failed:
 * never shown; its transactions stay in the pool for the next).
 */
export type FlashblockOutcome =
  | { kind: 'published'; snapshot: PendingSnapshot; txs: readonly PoolTransaction[] }
  | { kind: 'empty'; snapshot: PendingSnapshot }
  | { kind: 'discarded'; error: unknown };

/**
 * How blocks are sealed (the dev methods switch it: evm_setAutomine, evm_setIntervalMining).
 * `interval`: flashblocks every flashblockInterval, a seal every blockTime (wharf's own);
 * `auto`: a block per transaction (blockTime 0; Anvil's and Hardhat's default); `manual`: no
 * sealing and no pre-confirmation of pool transactions until `mine()` (Hardhat's automine off).
 * See docs/decisions/0140-dev-methods-and-flashblocks.md.
 */
export type SealMode = 'interval' | 'auto' | 'manual';

/** A timed flashblock: shown at its deadline; when its timer was set to fire, and fired (ms, `now()`). */
interface FlashblockTiming {
  showAt: number;
  firesAt: number;
  firedAt: number;
}

export class BlockProducer {
  private building: PendingBlock;
  private queue: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private busy = false;
  /** Ends a busy window that ran past half an interval: input is held no longer than that. */
  private busyCap?: NodeJS.Timeout;
  private stopped = false;
  private pool?: TxPool;
  /** A staging pass is scheduled (pool arrivals are batched, not executed one by one). */
  private stageTimer?: NodeJS.Timeout;
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
  private readonly stager: Stager;
  private readonly sealer: Sealer;
  private mode: SealMode;
  /** Dev methods' header settings: kept for every later block (`sticky`) or the next one opened. */
  private readonly sticky: { gasLimit?: bigint; coinbase?: Uint8Array } = {};
  private nextHeader: { timestamp?: bigint; baseFee?: bigint } = {};
  /** Added to the clock for block timestamps (evm_increaseTime), in ms. */
  private clockOffsetMs = 0;
  /** Dev methods' changes in the block being built, to apply again if it is opened again. */
  private blockEdits: ((s: JournaledState) => Promise<void>)[] = [];
  /** A follower's block built from its sequencer's flashblocks (followedBlocks.ts). */
  private followed?: FollowedState;
  /** The account trie at the head's state root, from its seal: a followed block opens on it. */
  private warm?: StateTrie;

  constructor(
    private readonly ctx: ChainContext,
    private readonly opts: ProducerOptions,
  ) {
    const now = () => this.now();
    this.mode = !opts.mining ? 'manual' : opts.blockTime === 0 ? 'auto' : 'interval';
    this.events = new BuilderEvents(opts.onError);
    this.schedule = new FlashblockSchedule(opts);
    this.sealer = new Sealer({
      journal: opts.journal,
      journaling: () => this.mode === 'interval',
      metrics: this.metrics,
      now,
      onError: opts.onError,
    });
    this.stager = new Stager({
      flat: ctx.flat,
      pool: () => this.pool,
      building: () => this.building,
      tick: this.tick,
      now,
      stopped: () => this.stopped,
      onError: opts.onError,
    });
    this.building = this.open(ctx.blocks.head);
  }

  /** What `pending` reads see: the block being built as of its last flashblock. Consumer: rpc. */
  get pending(): PendingSnapshot {
    const opening = this.sealer.opening;
    if (opening && this.ctx.blocks.head.header.number >= this.building.number) return opening.snapshot;
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
   * At start-up, before `start`: seals the blocks the journal holds past the head
   * (recovery.ts), waits until they are on disk, then opens the journal for the next block.
   */
  async recover(): Promise<RecoveryOutcome> {
    const journal = this.opts.journal;
    if (!journal) return { replayed: 0 };
    const outcome = await replayJournal(journal, {
      head: () => this.ctx.blocks.head,
      openAt: (parent, timestamp) => {
        this.building = this.open(parent, timestamp);
        return this.building;
      },
      seal: () => this.sealPending(false),
      onError: this.opts.onError,
    });
    await this.ctx.store.flushed();
    await this.sealer.openJournal(this.building);
    return outcome;
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
      this.schedule.startBlock(this.now());
      this.arm();
    }
  }

  /** Stops the flashblock timer (mode switches, rewinds). */
  private halt(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.tick.disarm();
    this.setBusy(false);
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
      this.halt();
      const was = this.mode;
      this.mode = mode;
      // The schedule reads the same options object.
      if (blockTime !== undefined && blockTime > 0) this.opts.blockTime = blockTime;
      // Only interval mode journals: its first append needs the block's opening record.
      if (mode === 'interval' && was !== 'interval') {
        await this.ctx.store.flushed();
        await this.sealer.openJournal(this.building);
      }
      if (this.pool) this.resume();
    });
  }

  /** Every sealed block's changed keys (evm_revert restores them). Consumer: builder/devControls.ts. */
  onSealedChanges(l: SealedChangesListener): () => void {
    return this.events.on('sealedChanges', l);
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
    if (b.snapshot.txs.length || b.staged.length || this.stager.staged.length) return;
    const edits = this.blockEdits;
    this.building = this.open(this.ctx.blocks.head);
    this.blockEdits = edits;
    this.sealer.reopened(this.building);
    if (edits.length) {
      for (const change of edits) await this.building.edit(change);
      await this.building.publish(1);
    }
    this.events.emit('flashblock', this.building.snapshot);
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
      await this.sealer.rewind();
      await this.ctx.store.flushed();
      await rewrite();
      this.building = this.open(this.ctx.blocks.head);
      this.stager.blockSealed();
      this.hidden = undefined;
      if (this.sealer.journaled) await this.sealer.openJournal(this.building);
      this.events.emit('flashblock', this.building.snapshot);
      if (this.pool) this.resume();
    });
  }

  /**
   * A follower's block, sealed by its sequencer (`txs`: its transactions with senders, else
   * recovered here). Built on the pending block when the flashblocks applied so far are its first
   * transactions (the rest executed into it), else on a fresh one with its header; sealed only
   * if that gives the block's hash (state, transactions and receipts roots, bloom and gas all
   * recomputed). A block that does not is run through execution/importBlock.ts, which names the
   * field that differs. Flashblocks the block contradicts are dropped and counted. Never on a
   * producer that seals itself. Consumer: follower/blockFollower.ts.
   */
  importSealed(block: Block, txs?: readonly FollowedTx[]): Promise<void> {
    return this.enqueue(async () => {
      if (this.opts.mining) throw new Error('importSealed is for followers: this node seals its own blocks');
      const head = this.ctx.blocks.head;
      // Sealed here already from its flashblocks (the next block's first one named it).
      if (equalBytes(head.hash(), block.hash())) return;
      checkHeader(block, head, this.ctx.spec.baseFee);
      const list =
        txs ??
        block.transactions.map((tx) => ({
          tx,
          raw: tx.serialize(),
          hash: tx.hash(),
          sender: tx.getSenderAddress().bytes,
        }));
      if (await this.sealFollowed(block, list)) return;
      this.metrics.follow.imported++;
      await importBlock(this.ctx, block);
      this.followed = undefined;
      this.warm = undefined;
      this.building = this.open(block);
      this.stager.blockSealed();
      this.hidden = undefined;
      this.events.emit('sealed', block, []);
      this.events.emit('flashblock', this.building.snapshot);
    });
  }

  /** Seals `block` from a pending block that re-executes it (see importSealed). False: it did not match. */
  private async sealFollowed(block: Block, txs: readonly FollowedTx[]): Promise<boolean> {
    const head = this.ctx.blocks.head;
    const base = baseOf(block);
    const f = this.followed;
    let b: PendingBlock | undefined = this.building;
    let from = 0;
    if (f && b.number === block.header.number) {
      const { same, standing } = sameBase(f.base, base)
        ? agreement(b.snapshot.txs, txs, f.marks)
        : { same: -1, standing: 0 };
      if (same === b.snapshot.txs.length && !b.staged.length) from = same;
      else {
        this.dropped(
          block.header.number,
          f.marks.length - standing,
          same < 0 ? 'the sealed block has another header' : 'the sealed block has other transactions',
        );
        b = undefined;
      }
    } else b = undefined;
    b ??= openFollowed(this.ctx, head, base, this.warm);
    if (await addAll(b, txs.slice(from))) return false;
    await b.publish(b.snapshot.index + 1);
    if (!equalBytes(b.snapshot.block.hash(), block.hash())) return false;
    this.building = b;
    this.followed = undefined;
    this.metrics.follow.reexecuted++;
    await this.sealPending();
    return true;
  }

  /**
   * One flashblock of a follower's sequencer, in stream order: index 0 opens its block on the
   * head with the sequencer's header (sealing the pending block first if the new block's parent
   * is it: the sequencer sealed exactly what was pre-confirmed); a later one executes its
   * transactions into the pending block and is shown only if the partial block then hashes to
   * its `block_hash`. A flashblock that does not is dropped (and counted), and with it the rest
   * of its block's: the sealed block settles that block. Consumer: follower/flashblockFollower.ts.
   */
  applyFlashblock(fb: FollowedFlashblock): Promise<FlashblockVerdict> {
    return this.enqueue(async (): Promise<FlashblockVerdict> => {
      if (this.opts.mining) throw new Error('applyFlashblock is for followers: this node builds its own');
      if (fb.base) {
        const b = this.building;
        const f = this.followed;
        if (!equalBytes(fb.base.parentHash, this.ctx.blocks.head.hash())) {
          const sealable =
            f &&
            !f.broken &&
            !b.staged.length &&
            b.number + 1n === fb.base.number &&
            equalBytes(b.snapshot.block.hash(), fb.base.parentHash);
          if (!sealable) return { kind: 'unknown-parent' };
          this.followed = undefined;
          this.metrics.follow.fromFlashblocks++;
          await this.sealPending();
        }
        const head = this.ctx.blocks.head;
        const next = openFollowed(this.ctx, head, fb.base, this.warm);
        try {
          checkHeader(next.snapshot.block, head, this.ctx.spec.baseFee);
        } catch (e) {
          return this.refuse(fb, (e as Error).message);
        }
        this.building = next;
        this.followed = { base: fb.base, payloadId: fb.payloadId, marks: [] };
        this.stager.blockSealed();
        this.hidden = undefined;
        if (!fb.txs.length) {
          this.metrics.follow.applied++;
          this.events.emit('flashblock', next.snapshot);
          return { kind: 'applied' };
        }
      }
      const f = this.followed;
      const b = this.building;
      if (!f || f.payloadId !== fb.payloadId || fb.number !== b.number) {
        // A block past the next one: the follower is behind. One before: sealed already.
        return fb.number > b.number ? { kind: 'unknown-parent' } : { kind: 'duplicate' };
      }
      if (f.broken) return this.refuse(fb, f.broken, false);
      if (fb.index <= b.snapshot.index && !fb.base) return { kind: 'duplicate' };
      if (fb.index > b.snapshot.index + 1) {
        this.refuse(fb, `flashblock ${b.snapshot.index + 1} of block ${b.number} was missed`);
        return { kind: 'gap' };
      }
      const why = await addAll(b, fb.txs);
      if (why) return this.refuse(fb, why);
      const prepared = await b.prepare();
      if (prepared && !equalBytes(prepared.stateRoot.root, fb.stateRoot)) {
        b.discard();
        return this.refuse(
          fb,
          `state root ${bytesToHex(prepared.stateRoot.root)} re-executed, the flashblock says ${bytesToHex(fb.stateRoot)}`,
        );
      }
      const s = await b.publish(fb.index, prepared);
      if (!equalBytes(s.header.hash(), fb.blockHash)) {
        // Shown already to nobody (no event yet), but in the block: open it again without it.
        this.building = openFollowed(this.ctx, this.ctx.blocks.head, f.base, this.warm);
        f.marks = [];
        const refused = this.refuse(
          fb,
          `partial block ${bytesToHex(s.header.hash())} re-executed, the flashblock says ${bytesToHex(fb.blockHash)}`,
        );
        this.events.emit('flashblock', this.building.snapshot);
        return refused;
      }
      f.marks.push(s.txs.length);
      this.metrics.follow.applied++;
      this.events.emit('flashblock', s);
      return { kind: 'applied' };
    });
  }

  /**
   * Drops `fb`, counted. `breaks`: the first of its block, reported, and the rest of the block's
   * are dropped too (counted, not reported again: one line per block).
   */
  private refuse(fb: FollowedFlashblock, reason: string, breaks = true): FlashblockVerdict {
    if (breaks && this.followed?.payloadId === fb.payloadId) this.followed.broken ??= reason;
    this.dropped(fb.number, 1, `flashblock ${fb.index}: ${reason}`, breaks);
    return { kind: 'contradicted', reason };
  }

  private dropped(block: bigint, count: number, reason: string, report = true): void {
    if (count <= 0) return;
    this.metrics.follow.dropped += count;
    if (report) this.opts.onDropped?.({ block, count, reason });
  }

  onSealed(l: SealListener): () => void {
    return this.events.on('sealed', l);
  }

  /** Every published flashblock, index 0 (a block opened) included. Consumers: streams. */
  onFlashblock(l: FlashblockListener): () => void {
    return this.events.on('flashblock', l);
  }

  /**
   * A timed flashblock once it is built, before it is shown at its deadline: time to prepare what
   * will be sent when it is (streams render their messages here, so that publication only sends).
   * Nothing may show it yet. Not called for flashblocks shown as soon as built.
   */
  onFlashblockBuilt(l: FlashblockListener): () => void {
    return this.events.on('built', l);
  }

  /**
   * The builder's busy windows: from a timed flashblock's timer to its showing (with the seal,
   * after a block's last one). The RPC server holds new requests meanwhile, so that the thread
   * is the builder's (requests that arrive then go to the next flashblock anyway). A window ends
   * after half an interval at the latest, so a builder that falls behind never starves RPC.
   */
  onBusy(l: BusyListener): () => void {
    return this.events.on('busy', l);
  }

  /**
   * Publishes a last flashblock and seals the pending block now; the next block's flashblocks
   * count from then. Consumers: tests, evm_mine-like dev methods.
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
    this.tick.disarm();
    this.setBusy(false);
    clearTimeout(this.timer);
    clearTimeout(this.stageTimer);
    this.timer = undefined;
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

  /**
   * Schedules the next flashblock. Its deadline is absolute in the current block; building starts
   * a little before it (FlashblockSchedule.lead) and the result is shown at the deadline, so that
   * flashblocks follow each other at the interval whatever one costs to build.
   */
  private arm(): void {
    clearTimeout(this.timer);
    if (this.stopped) return;
    const { showAt, firesAt } = this.schedule.deadline(this.building.snapshot.index + 1, this.now());
    this.tick.armed(firesAt);
    if (!this.busy) this.events.emit('busy', false, firesAt);
    this.timer = setTimeout(() => {
      this.tick.disarm();
      this.setBusy(true);
      this.tick.fire();
      const firedAt = this.now();
      this.enqueue(() => this.onTick({ showAt, firesAt, firedAt }));
    }, firesAt - this.now());
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
    const armed = Number.isFinite(this.tick.firesAt);
    this.events.emit('busy', busy, !busy && armed ? this.tick.firesAt : undefined);
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

  /**
   * Batches pool arrivals into one staging pass a few milliseconds later. The pass first reads
   * what it will touch, outside the queue: a flashblock that falls due meanwhile never waits
   * behind the database.
   */
  private scheduleStage(): void {
    if (this.stageTimer || this.stopped) return;
    // Cleared when the pass runs, not when it is queued: one pass waits in the queue at most.
    this.stageTimer = setTimeout(async () => {
      try {
        await this.stager.warm(this.stager.candidates().list).senders;
      } catch (e) {
        // Only a warm-up: execution reads whatever is still missing itself.
        this.opts.onError?.(e);
      }
      this.enqueue(async () => {
        this.stageTimer = undefined;
        // A flashblock fell due while this pass waited: it stages these itself.
        if (this.tick.due) return;
        // What this pass staged goes into the flashblock's state root now, not at its deadline,
        // unless that would run into the next flashblock's timer (the flashblock folds it in then).
        if (!(await this.stager.stage()) || this.tick.due) return;
        // Not while its trie reads are out: a flashblock falling due would wait behind them.
        if (!(await this.stager.pathsReadBeforeTick()) || this.tick.due) return;
        const from = this.now();
        if (!this.schedule.rootAheadFits(from, this.tick.firesAt)) return;
        await this.building.rootAhead();
        this.schedule.recordRootAhead(this.now() - from);
      });
    }, STAGE_BATCH_MS);
  }

  /**
   * One flashblock: whatever arrived since the last staging pass is staged too, as far as time
   * allows if it is shown at a deadline, then the staged transactions go to the journal and
   * become visible — at `timing.showAt` if the build finished early.
   */
  private async flashblock(
    limit = Number.POSITIVE_INFINITY,
    timing?: FlashblockTiming,
  ): Promise<FlashblockOutcome> {
    const started = this.now();
    const pool = this.pool;
    const b = this.building;
    const stager = this.stager;
    // A flashblock shown at a deadline stages what time allows, and whatever the one before left
    // to it: no transaction is left twice, and a builder that falls behind still catches up.
    const own = stager.forFlashblock(
      timing ? this.schedule.stagingStopsAt(timing.showAt, started) : Number.POSITIVE_INFINITY,
    );
    const stagedHere = await stager.stage(limit - stager.staged.length, own);
    stager.flashblockStaged(own);
    const stageMs = this.now() - started;
    const done = stager.staged;
    const index = b.snapshot.index + 1;
    let durable: JournaledFlashblock = {};
    if (done.length) {
      try {
        durable = await this.sealer.journalFlashblock(b, index);
      } catch (error) {
        // Not on disk, so never shown: the transactions stay in the pool for the next flashblock.
        b.discard();
        stager.discarded();
        this.opts.onError?.(error);
        return { kind: 'discarded', error };
      }
    }
    // Readers keep the previous flashblock until this one is due.
    if (timing) this.hidden = b.snapshot;
    let snapshot: PendingSnapshot;
    let built = started;
    try {
      snapshot = await b.publish(index, durable.prepared);
      stager.clearStaged();
      built = this.now();
      if (timing) {
        this.schedule.recordBuild(
          built - Math.min(timing.firedAt, started),
          done.length ? built - started - stageMs : undefined,
        );
        if (timing.showAt > built) {
          this.events.emit('built', snapshot);
          const ready = this.now();
          if (timing.showAt > ready) await sleep(timing.showAt - ready);
        }
      }
      this.metrics.flashblockBuild.observe((built - started) / 1000);
    } finally {
      if (timing) this.hidden = undefined;
    }
    const publishedAt = this.now();
    this.events.emit('flashblock', snapshot);
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
          journalMs: durable.journalMs,
          rootMs: durable.rootMs,
          wakeMs: Math.max(0, publishedAt - Math.max(timing.showAt, built)),
        });
    }
    m.flashblocks++;
    m.flashblockTxs.observe(done.length);
    for (const t of done) m.submitToPending.observe(Math.max(0, publishedAt - t.receivedAt) / 1000);
    stager.preconfirmed(done);
    if (!done.length) return { kind: 'empty', snapshot };
    if (pool) await pool.onIncluded(done);
    return { kind: 'published', snapshot, txs: done };
  }

  /**
   * Seals the published transactions (sealer.ts) and opens the next block on them. `openJournal`
   * false: recovery, which opens it once all is on disk.
   */
  private async sealPending(openJournal = true): Promise<Block> {
    const started = this.now();
    const sealed = await this.sealer.seal(
      this.building,
      (parent, warm) => {
        this.warm = warm;
        return this.open(parent, undefined, warm);
      },
      // The sealed block's batch is filled once the next block's first pre-confirmation is shown
      // (two intervals at most), not while the staging passes catch up after the seal.
      this.timer ? () => this.events.nextShown(2 * this.opts.flashblockInterval) : undefined,
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
    this.metrics.blocks++;
    this.metrics.flashblocks++;
    this.events.emit('flashblock', sealed.next.snapshot);
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
