/**
 * Opens the block being built on a parent: its timestamp (the clock, plus what evm_increaseTime
 * added, or the one evm_setNextBlockTimestamp set) and the header settings the dev methods made
 * (`timestamp` and `baseFee` for the next block only, `gasLimit` and `coinbase` sticky). It also
 * keeps the dev methods' state changes made in the block being built, so that a block opened
 * again (new header settings) gets them again. No timers, no queue: the producer calls it on its
 * queue.
 */
import type { Block } from '@ethereumjs/block';
import type { ChainContext } from '../execution/chainContext.js';
import type { JournaledState } from '../state/journaledState.js';
import type { StateTrie } from '../state/trieAdapter.js';
import { type HeaderOverrides, PendingBlock } from './pendingBlock.js';

/** Header settings of the dev methods (evm_setNextBlockTimestamp, anvil_setCoinbase, ...). */
export interface NextHeader {
  timestamp?: bigint;
  baseFee?: bigint;
  gasLimit?: bigint;
  coinbase?: Uint8Array;
}

/** A dev method's change to the state of the block being built (anvil_setBalance, ...). */
export type StateEdit = (s: JournaledState) => Promise<void>;

export class BlockOpener {
  /** Kept for every later block. */
  private readonly sticky: { gasLimit?: bigint; coinbase?: Uint8Array } = {};
  /** For the next block opened only. */
  private next: { timestamp?: bigint; baseFee?: bigint } = {};
  /** Added to the clock for block timestamps (evm_increaseTime), in ms. */
  private clockOffsetMs = 0;
  /** anvil_setBlockTimestampInterval: each block this many seconds after its parent, clock aside. */
  private timestampInterval?: bigint;
  /** Dev methods' changes in the block being built, to apply again if it is opened again. */
  private edits: StateEdit[] = [];

  constructor(
    private readonly ctx: ChainContext,
    private readonly now: () => number,
    private readonly extraData: Uint8Array = new Uint8Array(0),
  ) {}

  /**
   * A new block on `parent`: at `timestamp` (recovery: the journaled one), or the one set for the
   * next block, or the clock's (never at or before the parent's). Takes the settings for the next
   * block and forgets the edits of the block before.
   */
  open(parent: Block, timestamp?: bigint, warm?: StateTrie): PendingBlock {
    const now = BigInt(Math.floor((this.now() + this.clockOffsetMs) / 1000));
    const next = this.next;
    let ts = timestamp ?? next.timestamp;
    if (timestamp === undefined && next.timestamp !== undefined && next.timestamp > parent.header.timestamp)
      // Later blocks continue from the timestamp set (Anvil's evm_setNextBlockTimestamp).
      this.clockOffsetMs = Number(next.timestamp) * 1000 - this.now();
    const p = parent.header.timestamp;
    if (ts === undefined || ts <= p)
      ts =
        timestamp ??
        (this.timestampInterval !== undefined
          ? // Anvil's interval 0 gives the parent's timestamp again; wharf's must rise.
            p + (this.timestampInterval > 0n ? this.timestampInterval : 1n)
          : now > p
            ? now
            : p + 1n);
    const overrides: HeaderOverrides = { ...this.sticky, baseFee: next.baseFee };
    this.next = {};
    this.edits = [];
    return new PendingBlock(this.ctx, parent, ts, this.extraData, warm, overrides);
  }

  /** Opens the block on `parent` again with the current settings, keeping the edits to replay. */
  reopen(parent: Block): PendingBlock {
    const edits = this.edits;
    const b = this.open(parent);
    this.edits = edits;
    return b;
  }

  /** Applies the dev methods' edits kept by `reopen` again, shown as flashblock 1 if any. */
  async replayEdits(b: PendingBlock): Promise<void> {
    if (!this.edits.length) return;
    for (const change of this.edits) await b.edit(change);
    await b.publish(1);
  }

  /** A dev method changed the state of the block being built. */
  edited(change: StateEdit): void {
    this.edits.push(change);
  }

  /**
   * Adds `seconds` to the clock of future block timestamps, counted from the latest block if it
   * is ahead of the clock; returns the total offset (s). Blocks mined faster than one a second
   * take parent + 1 here (Anvil lets them share a timestamp instead), so the head can run ahead
   * of the clock; Anvil's users expect `latest + seconds` at least, so the clock first catches up
   * with the head. docs/decisions/0300-increase-time-counts-from-the-head.md.
   */
  increaseTime(seconds: bigint): bigint {
    const behindMs = Number(this.ctx.blocks.head.header.timestamp) * 1000 - (this.now() + this.clockOffsetMs);
    if (behindMs > 0) this.clockOffsetMs += behindMs;
    this.clockOffsetMs += Number(seconds) * 1000;
    return BigInt(Math.round(this.clockOffsetMs / 1000));
  }

  /**
   * The clock reads `timestamp` from now on (evm_revert: back to the snapshot's head, as Anvil
   * does), or the wall clock again (anvil_reset); the next block's settings are forgotten.
   */
  setClock(timestamp?: bigint): void {
    this.clockOffsetMs = timestamp === undefined ? 0 : Number(timestamp) * 1000 - this.now();
    this.next = {};
  }

  /**
   * anvil_setBlockTimestampInterval (`seconds`) / anvil_removeBlockTimestampInterval (undefined):
   * blocks not given a timestamp are `seconds` after their parent. Returns whether one was set.
   */
  setTimestampInterval(seconds?: bigint): boolean {
    const had = this.timestampInterval !== undefined;
    this.timestampInterval = seconds;
    return had;
  }

  /** Header settings for the blocks to come (see NextHeader). */
  set(h: NextHeader): void {
    if (h.timestamp !== undefined) this.next.timestamp = h.timestamp;
    if (h.baseFee !== undefined) this.next.baseFee = h.baseFee;
    if (h.gasLimit !== undefined) this.sticky.gasLimit = h.gasLimit;
    if (h.coinbase !== undefined) this.sticky.coinbase = h.coinbase;
  }
}
