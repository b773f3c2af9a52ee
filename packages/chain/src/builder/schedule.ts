/**
 * When flashblocks are built and shown: pure arithmetic over the block's start, the interval and
 * the recent build times, with no timers and no clock of its own (every method takes `now`), so
 * that it is tested with fake time (test/builder-schedule.test.ts).
 *
 *   block opens at `blockStart` ─> flashblock k is due at blockStart + k * interval (the last at
 *   blockTime) ─> its build starts `lead()` before that ─> it stops executing transactions at
 *   `stagingStopsAt(due, started)` ─> it is shown at the deadline ─> after the last, the seal.
 *
 * Why the lead and the staging stop are what they are: docs/decisions/0006-flashblocks-start-early-shown-on-time.md,
 * 0034-fold-root-ahead-and-stop-at-deadline.md, 0050-lead-margin-20ms-staging-stop-10ms-before.md,
 * 0480-staging-stop-from-expected-finish.md, 0512-staging-stop-6ms-before-the-expected-finish.md.
 */

/** Recent flashblock build times kept to decide how early the next one starts. */
const BUILD_TIMES_KEPT = 50;
/** Which of the kept build times the lead covers, the margin added, and its cap (of an interval). */
const LEAD_PERCENTILE = 0.98;
const LEAD_MARGIN_MS = 20;
const LEAD_CAP = 0.3;
/**
 * When a flashblock stops executing transactions: this much later than its deadline less its
 * expected finishing time (journal write, root, publication; negative: earlier), and never before
 * it has staged `STAGE_MIN_MS`.
 */
const LATE_ALLOWANCE_MS = -6;
/**
 * The finish expected before any flashblock with transactions has finished: with the allowance,
 * the first stops stay 10 ms before their deadlines (decision 0512).
 */
const UNKNOWN_FINISH_MS = 4;
const STAGE_MIN_MS = 12;
/**
 * Which of the recent finishing times a flashblock expects (decision 0480): not the longest, which
 * one stall kept for ten seconds, 30-40 ms early, while finishes took 2-8 ms.
 */
const FINISH_PERCENTILE = 0.9;
/** A finish's time per transaction counts at least this many (a finish has a fixed part). */
const FINISH_TXS_FLOOR = 20;

export interface ScheduleOptions {
  /** Seconds between seals (> 0: blockTime 0 seals per transaction and has no schedule). */
  blockTime: number;
  /** Milliseconds between flashblocks. */
  flashblockInterval: number;
}

/** A timed flashblock's timer: its deadline and when building starts (ms, the producer's clock). */
export interface Deadline {
  /** When the flashblock is shown (open + index * interval, at most the block time). */
  showAt: number;
  /** When its timer fires: the deadline less the lead, never in the past. */
  firesAt: number;
}

export class FlashblockSchedule {
  /** When the block being built opened: its deadlines are counted from here. */
  private blockStart = 0;
  /** How long recent flashblocks took from their timer firing to being built (ms). */
  private readonly buildTimes: number[] = [];
  /**
   * Recent flashblocks with transactions: how long each took from the end of its staging to
   * being built (ms), and how many transactions it had.
   */
  private readonly finishes: { ms: number; txs: number }[] = [];
  /** How long recent `rootAhead` calls took (ms). */
  private readonly aheadTimes: number[] = [];

  constructor(private readonly opts: ScheduleOptions) {}

  private get blockMs(): number {
    return this.opts.blockTime * 1000;
  }

  /** A block opened now (start, or a seal outside the timer such as `mine()`). */
  startBlock(now: number): void {
    this.blockStart = now;
  }

  /**
   * The block was sealed after its last flashblock: the next one's deadlines stay on the grid
   * unless the builder fell more than one interval behind.
   */
  sealed(now: number): void {
    const due = this.blockStart + this.blockMs;
    this.blockStart = now - due > this.opts.flashblockInterval ? now : due;
  }

  /** When flashblock `index` of the block is shown, and when its build starts. */
  deadline(index: number, now: number): Deadline {
    const showAt = this.blockStart + Math.min(index * this.opts.flashblockInterval, this.blockMs);
    return { showAt, firesAt: Math.max(now, showAt - this.lead()) };
  }

  /** Whether flashblock `index` is the block's last: the seal follows it. */
  isLast(index: number): boolean {
    return index * this.opts.flashblockInterval >= this.blockMs;
  }

  /**
   * How early a flashblock starts: the LEAD_PERCENTILE of recent builds, or the longest of the
   * last few when load has just risen, plus LEAD_MARGIN_MS; at most LEAD_CAP of an interval.
   */
  lead(): number {
    if (!this.buildTimes.length) return 0;
    const cap = this.opts.flashblockInterval * LEAD_CAP;
    return Math.min(cap, Math.ceil(highOf(this.buildTimes)) + LEAD_MARGIN_MS);
  }

  /**
   * When a flashblock shown at `showAt`, started at `started` and holding `txs` transactions
   * stops executing transactions: before its deadline by the time it should take to finish
   * (`finishOf`), less LATE_ALLOWANCE_MS, and not before it has staged STAGE_MIN_MS. What it has
   * not reached goes into the next flashblock.
   */
  stagingStopsAt(showAt: number, started: number, txs = 0): number {
    // Before any flashblock with transactions finished, UNKNOWN_FINISH_MS: a flashblock taking
    // arrivals until its stop (flashblockAttempt.ts) must leave time for its journal write.
    return Math.max(showAt - Math.ceil(this.finishOf(txs)) + LATE_ALLOWANCE_MS, started + STAGE_MIN_MS);
  }

  /**
   * How long a flashblock of `txs` transactions should take to finish (ms): the
   * FINISH_PERCENTILE of recent finishes, or the median of the last five when they have just
   * risen, or, with more transactions than recent ones had (a burst), their time per
   * transaction (the same percentile) times `txs`.
   */
  finishOf(txs: number): number {
    const f = this.finishes;
    if (!f.length) return UNKNOWN_FINISH_MS;
    const ms = f.map((x) => x.ms);
    const perTx = f.map((x) => x.ms / Math.max(x.txs, FINISH_TXS_FLOOR));
    return Math.max(
      percentile(ms, FINISH_PERCENTILE),
      percentile(ms.slice(-5), 0.5),
      percentile(perTx, FINISH_PERCENTILE) * txs,
    );
  }

  /**
   * A timed flashblock was built: `sinceTimer` from its timer firing (or its start, if later) to
   * built; `finish` from the end of its staging to built, if it had transactions (`txs`).
   */
  recordBuild(sinceTimer: number, finish?: number, txs = 0): void {
    keep(this.buildTimes, sinceTimer);
    if (finish !== undefined) keep(this.finishes, { ms: finish, txs });
  }

  /** Whether a root computed ahead at `now` would recently have finished before `firesAt`. */
  rootAheadFits(now: number, firesAt: number): boolean {
    return !this.aheadTimes.length || now + highOf(this.aheadTimes) < firesAt;
  }

  recordRootAhead(ms: number): void {
    keep(this.aheadTimes, ms);
  }
}

/** Adds a recent time, keeping BUILD_TIMES_KEPT. */
function keep<T>(times: T[], x: T): void {
  times.push(x);
  if (times.length > BUILD_TIMES_KEPT) times.shift();
}

/** The `q` quantile of `xs` (nearest rank, 0 for none). */
function percentile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
}

/** The LEAD_PERCENTILE of recent times, or the longest of the last few when they have just risen. */
export function highOf(times: readonly number[]): number {
  return Math.max(percentile(times, LEAD_PERCENTILE), ...times.slice(-5));
}
