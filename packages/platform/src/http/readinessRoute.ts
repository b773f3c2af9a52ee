/**
 * GET /readyz: whether this instance can serve now — the database answers `select 1` and Redis
 * (when configured) answers PING, each within a bound. 200 `{ready: true, checks}` or 503
 * `{ready: false, checks}` saying which failed (the cause is logged), so a load balancer or orchestrator stops sending
 * traffic here until the stores are back. /healthz stays liveness (the process answers).
 */
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';

export interface ReadinessOptions {
  database: Database;
  /** PING of the shared Redis; absent when the instance runs without Redis. */
  redisPing?: () => Promise<void>;
  /** Bound of each check, in milliseconds. */
  timeoutMs: number;
}

const Check = Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]);
const Readiness = Type.Object({
  ready: Type.Boolean(),
  checks: Type.Object({ database: Check, redis: Type.Optional(Check) }),
});

// The cause goes to the log, not the body: it names internal hosts and ports.
async function check(
  name: string,
  run: () => Promise<unknown>,
  timeoutMs: number,
  log: FastifyInstance['log'],
): Promise<'ok' | 'unavailable'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      run(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return 'ok';
  } catch (error) {
    log.warn({ err: error, check: name }, 'readiness check failed');
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export async function readinessRoute(app: FastifyInstance, options: ReadinessOptions): Promise<void> {
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database and Redis answer',
        response: { 200: Readiness, 503: Readiness },
      },
    },
    async (_request, reply) => {
      const [database, redis] = await Promise.all([
        check('database', () => sql`select 1`.execute(options.database.db), options.timeoutMs, app.log),
        options.redisPing ? check('redis', options.redisPing, options.timeoutMs, app.log) : undefined,
      ]);
      const checks = { database, ...(redis === undefined ? {} : { redis }) };
      const ready = database === 'ok' && (redis === undefined || redis === 'ok');
      return reply.code(ready ? 200 : 503).send({ ready, checks });
    },
  );
}
