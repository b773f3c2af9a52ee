/**
 * The developer API's rate limit: one budget per client IP shared by the notification endpoints,
 * checked first (before the key). Headers: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset
 * (seconds until a slot frees up), and Retry-After on 429. The client IP is the socket's peer,
 * or X-Forwarded-For's with trustProxy (Fastify's `request.ip`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ServiceError } from '../errors.js';
import type { RateLimitStore } from '../ratelimit/store.js';

export function rateLimitHook(
  store: RateLimitStore,
  options: {
    limit: number;
    windowMs: number;
    log?: Pick<Logger, 'warn'>;
    /** The budget's key; default the client IP. */
    keyOf?: (request: FastifyRequest) => string;
    /** What the budget is counted per, for the message; default `per IP`. */
    per?: string;
  },
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    let decision: Awaited<ReturnType<RateLimitStore['hit']>>;
    try {
      decision = await store.hit(
        options.keyOf?.(request) ?? `dev:${request.ip}`,
        options.limit,
        options.windowMs,
      );
    } catch (error) {
      // The counters' store is down: serve rather than refuse everyone.
      options.log?.warn({ err: error }, 'rate-limit store unavailable; request let through');
      return;
    }
    const resetSeconds = Math.max(1, Math.ceil(decision.resetMs / 1000));
    reply.header('ratelimit-limit', String(decision.limit));
    reply.header('ratelimit-remaining', String(decision.remaining));
    reply.header('ratelimit-reset', String(resetSeconds));
    if (!decision.allowed) {
      throw new ServiceError(
        'RATE_LIMITED',
        `rate limit exceeded: ${decision.limit} requests per ${options.windowMs === 60_000 ? 'minute' : `${options.windowMs / 1000} s`} ${options.per ?? 'per IP'}; retry in ${resetSeconds} s`,
        { retryAfter: resetSeconds },
      );
    }
  };
}
