/**
 * Rate-limit counters: a sliding window per key (the client IP) — every accepted request is
 * remembered for one window, and a request is accepted while fewer than `limit` are remembered.
 * Never aligned to the clock, so a burst across a minute boundary does not get twice the budget.
 * Rejected requests are not counted.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Milliseconds until the oldest remembered request leaves the window (one slot frees up). */
  resetMs: number;
}

export interface RateLimitStore {
  /** Counts one request for `key` if the budget allows it. Consumer: the rate-limit hook. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** In-process counters (one instance). */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly hits = new Map<string, number[]>();
  private lastSweep = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.clock();
    this.sweep(now, windowMs);
    let log = this.hits.get(key);
    if (!log) {
      log = [];
      this.hits.set(key, log);
    }
    while (log.length > 0 && log[0]! <= now - windowMs) log.shift();
    if (log.length >= limit) {
      return { allowed: false, limit, remaining: 0, resetMs: log[0]! + windowMs - now };
    }
    log.push(now);
    return { allowed: true, limit, remaining: limit - log.length, resetMs: log[0]! + windowMs - now };
  }

  /** Forgets keys whose window has passed, at most once per window. */
  private sweep(now: number, windowMs: number): void {
    if (now - this.lastSweep < windowMs) return;
    this.lastSweep = now;
    for (const [key, log] of this.hits) {
      if (log.length === 0 || log[log.length - 1]! <= now - windowMs) this.hits.delete(key);
    }
  }

  async close(): Promise<void> {
    this.hits.clear();
  }
}

// A sorted set per key, scored by Redis' own clock (so instances with skewed clocks agree).
const slidingWindowScript = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
local allowed = 0
if count < limit then
  redis.call('ZADD', KEYS[1], now, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], window)
  count = count + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reset = window
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, count, reset}
`;

/** Counters in Redis, shared by every instance that points at the same server and prefix. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;

  constructor(
    redisUrl: string,
    private readonly keyPrefix = 'wharf:',
    onError: (error: Error) => void = () => {},
  ) {
    // No offline queue: while Redis is unreachable a hit fails at once and the hook lets the
    // request through (logged), instead of holding it until a reconnection.
    this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
    this.redis.on('error', onError);
    this.redis.defineCommand('wharfSlidingWindow', { numberOfKeys: 1, lua: slidingWindowScript });
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const member = `${Date.now()}:${randomBytes(6).toString('hex')}`;
    const [allowed, count, reset] = (await (this.redis as any).wharfSlidingWindow(
      `${this.keyPrefix}ratelimit:${key}`,
      windowMs,
      limit,
      member,
    )) as [number, number, number];
    return {
      allowed: allowed === 1,
      limit,
      remaining: Math.max(0, limit - count),
      resetMs: Math.max(0, reset),
    };
  }

  /** Answers when Redis does (readiness); rejects at once while it is unreachable. */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  /** Resolves once connected; rejects after `timeoutMs`. The server waits for it at startup. */
  async ready(timeoutMs = 5000): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.redis.off('ready', onReady);
        reject(new Error(`Redis is not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve();
      };
      this.redis.once('ready', onReady);
    });
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
