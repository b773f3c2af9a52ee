/**
 * Delivers queued webhook events: at least once, in order per (app URL, wallet), retried on a
 * non-2xx answer or no answer within the timeout, on a backoff schedule (1 s, 5 s, 30 s, 2 min,
 * 10 min, 30 min, 1 h, 2 h, then every 4 h) until 24 h after the event; then it is marked failed
 * and the wallet's next event goes. Every server process runs one; they share the queue through
 * the database (claims are leases, see WebhooksRepository.claimDue), so a restart or a crash
 * loses nothing: what was not delivered is still pending.
 *
 *   pin change ─(same transaction)─> webhook_events ─> claimDue ─> POST (signed) ─> recordAttempt
 */
import type { Logger } from 'pino';
import { postWebhook } from './post.js';
import type { ClaimedEvent, WebhooksRepository } from './repository.js';
import { signatureHeader, signWebhook } from './signature.js';

export interface WebhookDispatcherOptions {
  /** Milliseconds before retry n (1-based); the last repeats. */
  retryScheduleMs: readonly number[];
  /** Milliseconds an attempt may take (no status line by then: a failure). */
  timeoutMs: number;
  /** Milliseconds between looks at the queue when nothing woke the dispatcher. */
  pollMs: number;
  /** Attempts in flight at once (each a different wallet and app). */
  concurrency: number;
  /** Refuse private addresses (`--webhook-block-private`). */
  blockPrivate: boolean;
  clock: () => number;
  log?: Pick<Logger, 'warn' | 'debug'>;
}

export const defaultRetryScheduleMs = [
  1_000,
  5_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 60 * 60_000,
  4 * 60 * 60_000,
] as const;

/** How long events are retried after they happen (or are resent). */
export const webhookRetryWindowMs = 24 * 60 * 60 * 1000;

export class WebhookDispatcher {
  private readonly inFlight = new Map<number, AbortController>();
  private readonly attempts = new Set<Promise<void>>();
  private closed = false;
  private wakeUp?: () => void;
  private running?: Promise<void>;
  private woken = false;

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly options: WebhookDispatcherOptions,
  ) {}

  start(): void {
    this.running ??= this.loop();
  }

  /** Look at the queue now (an event was just queued, or an attempt finished). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops: attempts in flight are abandoned and given back to the queue at once. */
  async close(): Promise<void> {
    this.closed = true;
    this.wakeUp?.();
    const abandoned = [...this.inFlight.keys()];
    for (const controller of this.inFlight.values()) controller.abort();
    await this.running;
    await Promise.allSettled([...this.attempts]);
    await this.repository.release(abandoned, this.options.clock()).catch(() => {});
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      this.woken = false;
      let wait = this.options.pollMs;
      try {
        const free = this.options.concurrency - this.inFlight.size;
        const now = this.options.clock();
        const leaseMs = this.options.timeoutMs + 5_000;
        const claimed = await this.repository.claimDue(now, free, leaseMs);
        if (this.closed) {
          await this.repository.release(
            claimed.map((e) => e.seq),
            now,
          );
          break;
        }
        for (const event of claimed) this.attempt(event);
        if (claimed.length === free && free > 0) wait = 0;
        else {
          const next = await this.repository.nextDueAt();
          if (next !== undefined && next > now) wait = Math.min(wait, next - now);
        }
      } catch (error) {
        if (this.closed) break;
        this.options.log?.warn({ err: error }, 'webhook queue unavailable; retrying');
      }
      if (this.closed) break;
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(wait, 10));
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private attempt(event: ClaimedEvent): void {
    const controller = new AbortController();
    this.inFlight.set(event.seq, controller);
    const attempt = this.deliver(event, controller.signal)
      .catch((error) =>
        this.options.log?.warn({ err: error, event: event.id }, 'webhook attempt not recorded'),
      )
      .finally(() => {
        this.inFlight.delete(event.seq);
        this.attempts.delete(attempt);
        if (!this.closed) this.wake();
      });
    this.attempts.add(attempt);
  }

  private async deliver(event: ClaimedEvent, signal: AbortSignal): Promise<void> {
    const startedAt = this.options.clock();
    let result: { statusCode?: number; error?: string };
    if (!event.url || event.secrets.length === 0) {
      result = { error: 'the project has no webhook URL' };
    } else {
      const header = signWebhook(event.secrets, Math.floor(startedAt / 1000), event.body);
      result = await postWebhook(
        event.url,
        event.body,
        { [signatureHeader]: header },
        { timeoutMs: this.options.timeoutMs, blockPrivate: this.options.blockPrivate, signal },
      );
    }
    // Abandoned by close(): released, not counted.
    if (signal.aborted) return;
    const at = this.options.clock();
    const ok = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
    let next: number | 'delivered' | 'failed';
    if (ok) next = 'delivered';
    else {
      const schedule = this.options.retryScheduleMs;
      const delay = schedule[Math.min(event.attempts, schedule.length - 1)] ?? 1_000;
      next = at + delay > event.deadlineAt || !event.url ? 'failed' : at + delay;
      if (!result.error) result.error = `answered ${result.statusCode}`;
    }
    await this.repository.recordAttempt(event.seq, {
      at,
      ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
      ...(result.error ? { error: result.error } : {}),
      next,
    });
    if (!ok) this.options.log?.debug({ event: event.id, ...result, next }, 'webhook attempt failed');
  }
}
