/**
 * One flashblock attempt, start to finish: stage what arrived since the last staging pass (as far
 * as time allows when it is shown at a deadline), then, if its staging stop is still ahead, let
 * RPC input in and stage what the pool takes until then; put the staged transactions in the
 * journal, publish them and show the flashblock (at its deadline if it was built early), then
 * count it. It returns what it came to (FlashblockOutcome); the producer decides when attempts run.
 *
 *   Stager.stage ─> (input let in) Stager.stage per arrival ─> (staging stop, input held)
 *       ─> Sealer.journalFlashblock ─> PendingBlock.publish ─> 'built' ─> (deadline)
 *       ─> 'flashblock' ─> (one turn: its answers go out) ─> metrics, late report ─> pool.onIncluded
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { PoolTransaction, TxPool } from '../txpool/types.js';
import type { BuilderEvents } from './events.js';
import type { FlashblockTiming } from './flashblockTimer.js';
import type { LateFlashblock } from './lateFlashblocks.js';
import type { BuilderMetrics } from './metrics.js';
import type { PendingBlock, PendingSnapshot } from './pendingBlock.js';
import type { FlashblockSchedule } from './schedule.js';
import type { JournaledFlashblock, Sealer } from './sealer.js';
import type { InFlashblock, Stager } from './stager.js';

/** A flashblock lets input in only if its staging stop is at least this far ahead (ms). */
const LET_IN_MIN_MS = 4;
/** Arrivals are staged together: the first, and what comes this long after it (ms). */
const LET_IN_BATCH_MS = 4;

/**
 * What one flashblock attempt came to: `published` with transactions, `empty` (published with
 * none: the same partial block under the next index), or `discarded` (its journal write failed:
 * never shown; its transactions stay in the pool for the next).
 */
export type FlashblockOutcome =
  | { kind: 'published'; snapshot: PendingSnapshot; txs: readonly PoolTransaction[] }
  | { kind: 'empty'; snapshot: PendingSnapshot }
  | { kind: 'discarded'; error: unknown };

export interface FlashblockAttemptDeps {
  stager: Stager;
  sealer: Sealer;
  schedule: FlashblockSchedule;
  events: BuilderEvents;
  metrics: BuilderMetrics;
  pool: () => TxPool | undefined;
  /** What `pending` shows until a timed flashblock is due (undefined: the block being built). */
  hide: (snapshot: PendingSnapshot | undefined) => void;
  now: () => number;
  /** Milliseconds between flashblocks. */
  intervalMs: number;
  /**
   * A timed flashblock that staged what waited lets RPC input in until its staging stop
   * (`until`, ms, `now()`), and holds it again from then until it is shown (flashblockTimer.ts).
   */
  letInputIn?: (until: number) => void;
  holdInput?: () => void;
  /** A timed flashblock was shown late (more than a tenth of the interval), and why. */
  onLate?: (late: LateFlashblock) => void;
  onError?: (e: unknown) => void;
}

/**
 * One flashblock of `b`: at most `limit` transactions more are staged. `timing`: it is shown at
 * `timing.showAt`, not as soon as it is built.
 */
export async function attemptFlashblock(
  d: FlashblockAttemptDeps,
  b: PendingBlock,
  limit: number,
  timing?: FlashblockTiming,
): Promise<FlashblockOutcome> {
  const { stager, now } = d;
  const started = now();
  // A flashblock shown at a deadline stages what time allows, and whatever the one before left
  // to it: no transaction is left twice, and a builder that falls behind still catches up.
  // Its stop allows for the finish its transactions need, as far as they are known: those the
  // staging passes staged, then again after each staging of its own (it only comes earlier).
  const stopFor = (txs: number) =>
    timing ? d.schedule.stagingStopsAt(timing.showAt, started, txs) : Number.POSITIVE_INFINITY;
  const own = stager.forFlashblock(stopFor(stager.staged.length));
  let stagedHere = await stager.stage(limit - stager.staged.length, own);
  own.stopAt = Math.min(own.stopAt, stopFor(stager.staged.length));
  // What arrives before the staging stop still makes this flashblock (decision 0310): the cut-off
  // for a transaction is the stop, not the timer, which fires a lead earlier for builds under load.
  let letInMs = 0;
  if (timing && d.letInputIn && d.holdInput && own.stopAt - now() >= LET_IN_MIN_MS) {
    const from = now();
    // Arrivals it does not reach are not left to the next flashblock as the backlog is (which
    // must take all it is left, late if need be): the staging passes take them as any others.
    const arrivals: InFlashblock = { ...own, left: new Set() };
    d.letInputIn(own.stopAt);
    try {
      for (;;) {
        const left = own.stopAt - now();
        if (left <= 0 || !(await stager.nextArrival(left))) break;
        // What comes in the next few milliseconds comes along: one pass over the pool, one batch
        // of reads, for several arrivals (at 1,000/s, one each was a pass per millisecond).
        await sleep(Math.max(0, Math.min(LET_IN_BATCH_MS, own.stopAt - now() - 1)));
        if (now() >= own.stopAt) break;
        stagedHere += await stager.stage(limit - stager.staged.length, arrivals);
        own.stopAt = arrivals.stopAt = Math.min(own.stopAt, stopFor(stager.staged.length));
      }
    } finally {
      d.holdInput();
    }
    // Staging past the stop (an arrival's execution) counts as work, not as waiting.
    letInMs = Math.max(0, Math.min(now(), own.stopAt) - from);
  }
  stager.flashblockStaged(own);
  // The work of staging: the wait for arrivals is not counted, there or in the build.
  const stageMs = now() - started - letInMs;
  const done = stager.staged;
  const index = b.snapshot.index + 1;
  let durable: JournaledFlashblock = {};
  if (done.length) {
    try {
      durable = await d.sealer.journalFlashblock(b, index);
    } catch (error) {
      // Not on disk, so never shown: the transactions stay in the pool for the next flashblock.
      b.discard();
      stager.discarded();
      d.onError?.(error);
      return { kind: 'discarded', error };
    }
  }
  // Readers keep the previous flashblock until this one is due.
  if (timing) d.hide(b.snapshot);
  let snapshot: PendingSnapshot;
  let built = started;
  try {
    snapshot = await b.publish(index, durable.prepared);
    stager.clearStaged();
    built = now();
    if (timing) {
      // The lead covers the work from the timer to built, not the wait for arrivals.
      d.schedule.recordBuild(
        built - Math.min(timing.firedAt, started) - letInMs,
        done.length ? built - started - letInMs - stageMs : undefined,
        done.length,
      );
      if (timing.showAt > built) {
        d.events.emit('built', snapshot, timing.showAt - built);
        const ready = now();
        if (timing.showAt > ready) await sleep(timing.showAt - ready);
      }
    }
    d.metrics.flashblockBuild.observe((built - started - letInMs) / 1000);
  } finally {
    if (timing) d.hide(undefined);
  }
  const publishedAt = now();
  d.events.emit('flashblock', snapshot);
  stager.preconfirmed(done);
  // What the showing woke goes out before anything else holds the thread: ~200
  // eth_sendRawTransactionSync answers at 1,000/s are written in continuations and flushed to
  // the front threads after them, and waited behind the pool's bookkeeping and, after a block's
  // last flashblock, ~60 ms behind the seal (decision 0511). A timed flashblock runs on the
  // builder's queue with input held: nothing else moves in this turn.
  if (timing && done.length) await nextTurn();
  const m = d.metrics;
  if (timing) {
    const lateMs = Math.max(0, publishedAt - timing.showAt);
    m.flashblockLateness.observe(lateMs / 1000);
    if (lateMs > d.intervalMs / 10)
      d.onLate?.({
        block: b.number,
        index,
        lateMs,
        behindMs: Math.max(0, timing.firesAt - timing.showAt),
        timerMs: Math.max(0, timing.firedAt - timing.firesAt),
        queuedMs: Math.max(0, started - timing.firedAt),
        buildMs: built - started - letInMs,
        stageMs,
        stagedHere,
        journalMs: durable.journalMs,
        rootMs: durable.rootMs,
        wakeMs: Math.max(0, publishedAt - Math.max(timing.showAt, built)),
      });
  }
  m.flashblocks.inc();
  m.flashblockTxs.observe(done.length);
  for (const t of done) m.submitToPending.observe(Math.max(0, publishedAt - t.receivedAt) / 1000);
  if (!done.length) return { kind: 'empty', snapshot };
  const pool = d.pool();
  if (pool) await pool.onIncluded(done);
  return { kind: 'published', snapshot, txs: done };
}
