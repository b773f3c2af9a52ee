/**
 * Requests run in arrival order, a slice at a time, and never across the start of a flashblock.
 * A socket's read can carry a hundred WebSocket messages (a client's burst, or what waited in
 * the buffer through a hold), and ws emits them one after another in the same turn of the event
 * loop: such a run of eth_sendRawTransaction (decode, ecrecover, pool checks) held the thread,
 * and a flashblock whose timer fell due meanwhile started late by as much
 * (docs/decisions/0028-rpc-request-queue-in-slices.md). Now a request is not started in the last
 * moments before the builder's next window (`hold(false, nextAt)`): the rest waits until the
 * window has begun, and through it.
 *
 * While held (the builder's busy window, `RpcServer.holdInput`) nothing runs: what was read
 * before the hold waits here as the rest waits in the sockets.
 */
import { performance } from 'node:perf_hooks';

/** How long one slice may run before other work (staging passes, I/O) gets a turn. */
const SLICE_MS = 10;
/**
 * No request starts this close to the next window: one takes ~0.2 ms, with its continuations. A
 * transaction's request started later than this misses the flashblock whose staging stop is that
 * window, so this is part of every transaction's cut-off (decision 0512: 3 -> 1 ms).
 */
const QUIET_MS = 1;
/**
 * Requests waiting at which the queue asks for reading to stop (`onPressure(true)`), until half
 * as many wait: a client sending faster than requests are answered fills its socket and its
 * TCP window, not the node's memory. A held window at 1,000 transfers/s leaves ~100 waiting.
 */
export const QUEUE_HIGH_WATER = 2048;

export class RequestQueue {
  private pressured = false;

  constructor(
    /** Called with true when the queue is full and reading should stop, false when it may resume. */
    private readonly onPressure: (on: boolean) => void = () => {},
    private readonly highWater = QUEUE_HIGH_WATER,
  ) {}

  private jobs: (() => void)[] = [];
  /** Each job's expected cost in ms (a large body's parse), by the same index as `jobs`. */
  private costs: number[] = [];
  private head = 0;
  private scheduled = false;
  private held = false;
  /** Date.now() from which no request starts: the next window, less QUIET_MS. */
  private quietFrom = Number.POSITIVE_INFINITY;
  /** Runs the queue again once the window that made it stop should have begun. */
  private resume?: NodeJS.Timeout;

  /**
   * Runs `job` (its synchronous part: whatever it awaits continues on its own) in its turn.
   * `costMs`: how long its synchronous part may take (parsing a 5 MiB body is ~50 ms): it does
   * not start unless that much time is left before the builder's next window.
   */
  push(job: () => void, costMs = 0): void {
    this.jobs.push(job);
    this.costs.push(costMs);
    if (!this.pressured && this.size >= this.highWater) this.setPressure(true);
    this.schedule();
  }

  private setPressure(on: boolean): void {
    this.pressured = on;
    this.onPressure(on);
  }

  /**
   * `on`: the builder's window has begun, nothing starts. Off: it is over; `nextAt`
   * (Date.now() clock) is when the next one begins, if one is scheduled.
   */
  hold(on: boolean, nextAt?: number): void {
    this.held = on;
    this.quietFrom = on || nextAt === undefined ? Number.POSITIVE_INFINITY : nextAt - QUIET_MS;
    clearTimeout(this.resume);
    this.resume = undefined;
    this.schedule();
  }

  /**
   * For long executions (EvmBudget): resolves in a later turn of the queue, behind the requests
   * waiting now, and never in the builder's window.
   */
  turn(): Promise<void> {
    return new Promise((resolve) => this.push(resolve));
  }

  /** true while the builder's window is on or about to begin: a long execution should pause. */
  mustYield(): boolean {
    return this.held || Date.now() >= this.quietFrom;
  }

  get size(): number {
    return this.jobs.length - this.head;
  }

  private schedule(): void {
    if (this.scheduled || this.resume || this.held || this.size === 0) return;
    const now = Date.now();
    if (now + this.costs[this.head] >= this.quietFrom) {
      // The window should begin within QUIET_MS: it holds the queue when it does. If it does
      // not (a stopped builder), the requests run anyway.
      this.resume = setTimeout(
        () => {
          this.resume = undefined;
          this.quietFrom = Number.POSITIVE_INFINITY;
          this.schedule();
        },
        this.quietFrom + QUIET_MS - now + 1,
      );
      return;
    }
    this.scheduled = true;
    setImmediate(() => this.runSlice());
  }

  private runSlice(): void {
    this.scheduled = false;
    const until = performance.now() + SLICE_MS;
    try {
      while (this.size > 0 && !this.held && Date.now() + this.costs[this.head] < this.quietFrom) {
        const job = this.jobs[this.head];
        this.jobs[this.head++] = noop; // let it go
        try {
          job();
        } catch (e) {
          // A job answers its own errors; one that throws anyway must not stop the others, nor
          // the process: it is reported, and the queue goes on.
          process.emitWarning(e instanceof Error ? e : new Error(String(e)));
        }
        if (performance.now() >= until) break;
      }
    } finally {
      if (this.pressured && this.size <= this.highWater / 2) this.setPressure(false);
      if (this.size === 0) {
        this.jobs = [];
        this.costs = [];
        this.head = 0;
      } else if (this.head > 1024) {
        this.jobs = this.jobs.slice(this.head);
        this.costs = this.costs.slice(this.head);
        this.head = 0;
      }
      this.schedule();
    }
  }
}

const noop = () => {};
