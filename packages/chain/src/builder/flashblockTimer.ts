/**
 * The flashblock timer and the builder's busy windows. The timer fires a flashblock's build a
 * little before its deadline (FlashblockSchedule.deadline); from then until the flashblock is
 * shown the builder is busy (the RPC server holds new input), except while the flashblock,
 * having staged what waited, takes arrivals until its staging stop (flashblockAttempt.ts,
 * decision 0310). A busy window lasts half an interval at most, so that a builder that falls
 * behind never starves RPC.
 */
import type { BuilderEvents } from './events.js';
import type { FlashblockSchedule } from './schedule.js';
import type { TickSignal } from './tickSignal.js';

/** A timed flashblock: shown at its deadline; when its timer was set to fire, and fired (ms, `now()`). */
export interface FlashblockTiming {
  showAt: number;
  firesAt: number;
  firedAt: number;
}

export interface FlashblockTimerDeps {
  schedule: FlashblockSchedule;
  tick: TickSignal;
  events: BuilderEvents;
  now: () => number;
  /** Milliseconds between flashblocks. */
  intervalMs: number;
  /** The timer fired: queue the flashblock's build (the window is busy already). */
  fired: (timing: FlashblockTiming) => void;
}

export class FlashblockTimer {
  private timer?: NodeJS.Timeout;
  private busy = false;
  /** Ends a busy window that ran past half an interval: input is held no longer than that. */
  private busyCap?: NodeJS.Timeout;

  constructor(private readonly d: FlashblockTimerDeps) {}

  /** The timer runs (interval mode, started and not halted), armed or its flashblock being built. */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /**
   * Schedules flashblock `index` of the block being built. Its deadline is absolute in the block;
   * building starts a little before it (FlashblockSchedule.lead) and the result is shown at the
   * deadline, so that flashblocks follow each other at the interval whatever one costs to build.
   */
  arm(index: number): void {
    const { schedule, tick, events, now } = this.d;
    clearTimeout(this.timer);
    const { showAt, firesAt } = schedule.deadline(index, now());
    tick.armed(firesAt);
    if (!this.busy) events.emit('busy', false, firesAt);
    this.timer = setTimeout(() => {
      tick.disarm();
      this.setBusy(true);
      tick.fire();
      this.d.fired({ showAt, firesAt, firedAt: now() });
    }, firesAt - now());
  }

  /** Stops the timer (mode switches, rewinds, stop) and ends a busy window. */
  halt(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.d.tick.disarm();
    this.setBusy(false);
  }

  /**
   * Begins or ends a busy window. Ending it, `nextAt` is when the next one begins: by default
   * the armed timer's firing; a flashblock letting arrivals in says its staging stop.
   */
  setBusy(busy: boolean, nextAt?: number): void {
    if (this.busy === busy) return;
    this.busy = busy;
    clearTimeout(this.busyCap);
    if (busy) this.busyCap = setTimeout(() => this.setBusy(false), this.d.intervalMs / 2);
    const armed = Number.isFinite(this.d.tick.firesAt);
    if (!busy) nextAt ??= armed ? this.d.tick.firesAt : undefined;
    this.d.events.emit('busy', busy, busy ? undefined : nextAt);
  }
}
