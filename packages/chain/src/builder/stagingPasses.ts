/**
 * When pool arrivals are staged between flashblocks: gathered for STAGE_BATCH_MS, then one pass
 * reads what they touch (outside the builder's queue: a flashblock that falls due meanwhile
 * never waits behind the database), stages them on the queue and, if time allows before the next
 * flashblock's timer, folds them into the state root ahead of the deadline.
 *
 *   pool.onAdded ─> (10 ms) Stager.warm ─> queue: Stager.stage ─> paths read ─> rootAhead
 *
 * Every step gives way to a flashblock falling due (TickSignal): it stages what is left itself.
 */
import type { PendingBlock } from './pendingBlock.js';
import type { FlashblockSchedule } from './schedule.js';
import type { Stager } from './stager.js';
import type { TickSignal } from './tickSignal.js';

/** How long pool arrivals are gathered before they are executed into the flashblock being built. */
const STAGE_BATCH_MS = 10;

export interface StagingPassDeps {
  stager: Stager;
  schedule: FlashblockSchedule;
  tick: TickSignal;
  building: () => PendingBlock;
  /** Runs `fn` on the builder's serial queue. */
  enqueue: (fn: () => Promise<void>) => Promise<void>;
  now: () => number;
  stopped: () => boolean;
  onError?: (e: unknown) => void;
}

export class StagingPasses {
  /** A staging pass is scheduled (pool arrivals are batched, not executed one by one). */
  private timer?: NodeJS.Timeout;

  constructor(private readonly d: StagingPassDeps) {}

  /** Pool arrivals: one staging pass a few milliseconds from now, unless one is scheduled. */
  schedule(): void {
    if (this.timer || this.d.stopped()) return;
    // Cleared when the pass runs, not when it is queued: one pass waits in the queue at most.
    this.timer = setTimeout(async () => {
      const { stager } = this.d;
      try {
        await stager.warm(stager.candidates().list).senders;
      } catch (e) {
        // Only a warm-up: execution reads whatever is still missing itself.
        this.d.onError?.(e);
      }
      this.d.enqueue(async () => {
        this.timer = undefined;
        await this.pass();
      });
    }, STAGE_BATCH_MS);
  }

  /** Drops the scheduled pass (rewinds, stop). */
  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async pass(): Promise<void> {
    const { stager, schedule, tick, now } = this.d;
    // A flashblock fell due while this pass waited: it stages these itself.
    if (tick.due) return;
    // What this pass staged goes into the flashblock's state root now, not at its deadline,
    // unless that would run into the next flashblock's timer (the flashblock folds it in then).
    if (!(await stager.stage()) || tick.due) return;
    // Not while its trie reads are out: a flashblock falling due would wait behind them.
    if (!(await stager.pathsReadBeforeTick()) || tick.due) return;
    const from = now();
    if (!schedule.rootAheadFits(from, tick.firesAt)) return;
    await this.d.building().rootAhead();
    schedule.recordRootAhead(now() - from);
  }
}
