/**
 * Rate-limit counters that survive a Redis outage: the shared store while it answers, this
 * instance's own counters while it does not (docs/decisions/0171). During an outage each instance
 * keeps its own budget per IP, so a client behind N instances may get up to N budgets; refusing
 * everyone, or counting nothing, would be worse.
 */
import type { RateLimitDecision, RateLimitStore } from './store.js';

export class FallbackRateLimitStore implements RateLimitStore {
  private degraded = false;

  constructor(
    private readonly shared: RateLimitStore,
    private readonly local: RateLimitStore,
    private readonly onChange: (degraded: boolean, error?: unknown) => void = () => {},
  ) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    try {
      const decision = await this.shared.hit(key, limit, windowMs);
      if (this.degraded) {
        this.degraded = false;
        this.onChange(false);
      }
      return decision;
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.onChange(true, error);
      }
      return this.local.hit(key, limit, windowMs);
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.shared.close(), this.local.close()]);
  }
}
