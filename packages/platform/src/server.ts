/**
 * The platform server's composition root: opens the store, wires the concrete parts behind their
 * interfaces and registers the HTTP scopes.
 *
 *   HTTP ─> http/developerRoutes ─> domain/{send,status,users} ─> preferences/ , delivery/ ─> db/
 *        ─> http/adminRoutes      ─> admin.ts                    ─> db/repositories/projects
 *        ─> http/dashboardRoutes  ─> domain/dashboard (owner check) ─> admin.ts, domain/{send,status,users}
 *   delivery ─> delivery/fanout (in process, or Redis pub/sub)
 *                    delivery/outboxRelay (pushes what a writer did not: docs/decisions/0170)
 *   rate limit ─> ratelimit/store (in memory, or Redis with per-instance fallback)
 *   /healthz (liveness), /readyz (database and Redis answer)
 *
 * One file (over 400 lines) because it is the composition root: the one place that knows every
 * concrete part. Its length is wiring and options; it holds no rule of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { type Admin, createAdmin } from './domain/admin.js';
import { type Database, openDatabase } from './db/database.js';
import { InboxRepository } from './db/repositories/inbox.js';
import { ProjectsRepository } from './db/repositories/projects.js';
import { SendLogRepository } from './db/repositories/sendLog.js';
import { SessionsRepository } from './db/repositories/sessions.js';
import { isLoopbackHost, loopbackOrigins, parsePublicUrl } from './auth/publicOrigin.js';
import { chainVerifier, eoaVerifier } from './auth/siwe.js';
import type { ClientDeps } from './domain/client.js';
import { Type } from '@fastify/type-provider-typebox';
import { clientRoutes } from './http/clientRoutes.js';
import { dashboardRoutes } from './http/dashboardRoutes.js';
import { InProcessFanout, type LiveFanout, RedisFanout } from './delivery/fanout.js';
import type { DeliveryPath } from './delivery/path.js';
import { defaultOutboxLeaseMs, OutboxRelay } from './delivery/outboxRelay.js';
import { SqlDeliveryPath } from './delivery/sqlDeliveryPath.js';
import type { DeveloperDeps } from './domain/deps.js';
import { createUlidGenerator } from './domain/ulid.js';
import { ServiceError } from './errors.js';
import { adminRoutes } from './http/adminRoutes.js';
import { registerApiDocs } from './http/apiDocs.js';
import { clientErrorHandler, frameworkErrorHandler } from './http/clientErrors.js';
import { installAppSecurityHeaders } from './http/securityHeaders.js';
import { fastifyTrustProxy } from './http/trustProxy.js';
import { developerRoutes } from './http/developerRoutes.js';
import { installErrorHandler } from './http/errorHandler.js';
import { registerMetrics } from './http/metricsRoute.js';
import { StreamRegistry } from './http/notificationStream.js';
import { readinessRoute } from './http/readinessRoute.js';
import { countDeliveries } from './delivery/countDeliveries.js';
import { createPlatformMetrics } from './metrics.js';
import { ErrorBody } from './http/schemas.js';
import { type PlatformServer, type PlatformServerOptions, platformLimitDefaults } from './options.js';
import { SqlPreferencesStore } from './preferences/sqlPreferencesStore.js';
import type { PreferencesStore } from './preferences/store.js';
import { FallbackRateLimitStore } from './ratelimit/fallbackStore.js';
import { defaultRetryScheduleMs, WebhookDispatcher } from './webhooks/dispatcher.js';
import { WebhooksRepository } from './webhooks/repository.js';
import { webhookTransitionSink } from './webhooks/transitions.js';
import { MemoryRateLimitStore, type RateLimitStore, RedisRateLimitStore } from './ratelimit/store.js';

/** Log paths that never reach a log line: API keys, admin and session tokens. */
export const redactPaths = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  'apiKey',
];

/** The parts of a built platform app, for the CLI's in-process use and for tests. */
export interface Platform {
  database: Database;
  admin: Admin;
  preferences: PreferencesStore;
  delivery: DeliveryPath;
  fanout: LiveFanout;
  /** Prunes the send log: what the periodic sweep does (tests call it with an injected clock). */
  pruneSendLog: () => Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    platform: Platform;
  }
}

const dedupeSweepMs = 10 * 60 * 1000;

/** A request URL with the value of `access_token` hidden. */
export function redactQueryToken(url: string | undefined): string | undefined {
  return url?.replace(/([?&]access_token=)[^&#]*/g, '$1[redacted]');
}

/** A URL with its password hidden, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}

/** Builds the platform's HTTP app without listening (tests use `app.inject`). */
export async function buildPlatformApp(options: PlatformServerOptions): Promise<FastifyInstance> {
  const clock = options.clock ?? Date.now;
  const logger = options.logger?.child(
    {},
    {
      redact: { paths: redactPaths, censor: '[redacted]' },
      // The stream takes ?access_token= (EventSource cannot set headers): keep it out of logged URLs.
      serializers: {
        req: (req: {
          method?: string;
          url?: string;
          host?: string;
          ip?: string;
          socket?: { remotePort?: number };
        }) => ({
          method: req.method,
          url: redactQueryToken(req.url),
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        }),
      },
    },
  );
  const limits = { ...platformLimitDefaults, ...definedLimits(options) };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new Error('headersTimeoutMs must not exceed requestTimeoutMs');
  if (limits.sseHeartbeatMs >= limits.idleTimeoutMs)
    throw new Error('sseHeartbeatMs must be shorter than idleTimeoutMs (streams would be cut as idle)');
  const publicUrl = options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl);
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger | undefined,
    trustProxy: fastifyTrustProxy(options.trustProxy),
    bodyLimit: limits.bodyLimitBytes,
    // A slow sender (a byte every 10 s) cannot hold a connection: the whole request within
    // requestTimeout, its headers within headersTimeout, checked every second.
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler as never,
  });
  // The origins SIWE messages may name: the configured one, else this server's loopback origins
  // (its port is known once it listens).
  const publicOrigins = (): readonly string[] => {
    if (publicUrl) return [publicUrl];
    const address = app.server.address();
    return loopbackOrigins(typeof address === 'object' && address ? address.port : options.port);
  };

  const database = await openDatabase(options);
  const prefix = options.redisKeyPrefix ?? 'wharf:';
  const onRedisError = (error: Error) => app.log.warn({ err: error }, 'redis connection error');
  const fanout: LiveFanout = options.redisUrl
    ? new RedisFanout(options.redisUrl, { keyPrefix: prefix, onError: onRedisError })
    : new InProcessFanout();
  const redisCounters = options.redisUrl
    ? new RedisRateLimitStore(options.redisUrl, prefix, onRedisError)
    : undefined;
  // While Redis is away each instance counts on its own (docs/decisions/0171).
  const rateLimitStore: RateLimitStore = redisCounters
    ? new FallbackRateLimitStore(redisCounters, new MemoryRateLimitStore(clock), (degraded, error) =>
        degraded
          ? app.log.warn(
              { err: error },
              'Redis unavailable: rate limits counted per instance until it is back',
            )
          : app.log.info('Redis is back: rate limits shared again'),
      )
    : new MemoryRateLimitStore(clock);

  if (redisCounters) {
    try {
      await redisCounters.ready();
      if (fanout instanceof RedisFanout) await fanout.publisherReady();
    } catch (error) {
      await Promise.allSettled([rateLimitStore.close(), fanout.close(), database.close()]);
      throw new Error(`cannot reach Redis at ${redactUrl(options.redisUrl!)}: ${(error as Error).message}`);
    }
  }

  const webhooksRepository = new WebhooksRepository(database.db);
  const dispatcher = new WebhookDispatcher(webhooksRepository, {
    retryScheduleMs: options.webhookRetryScheduleMs ?? defaultRetryScheduleMs,
    timeoutMs: options.webhookTimeoutMs ?? 10_000,
    pollMs: options.webhookPollMs ?? 1_000,
    concurrency: options.webhookConcurrency ?? 8,
    blockPrivate: options.webhookBlockPrivate === true,
    clock,
    log: app.log,
  });
  const wakeDispatcher = () => dispatcher.wake();
  const basePreferences = new SqlPreferencesStore(
    database.db,
    database.kind,
    webhookTransitionSink(webhooksRepository, createUlidGenerator(clock), wakeDispatcher),
  );
  const preferences =
    typeof options.preferences === 'function'
      ? options.preferences(basePreferences)
      : (options.preferences ?? basePreferences);
  const outboxLeaseMs = options.outboxLeaseMs ?? defaultOutboxLeaseMs;
  const sqlDelivery = new SqlDeliveryPath(database, fanout, app.log, outboxLeaseMs);
  const relay = new OutboxRelay(database, fanout, {
    leaseMs: outboxLeaseMs,
    pollMs: Math.max(100, Math.min(1_000, Math.floor(outboxLeaseMs / 5))),
    clock,
    log: app.log,
  });
  relay.start();
  const metrics = createPlatformMetrics();
  const delivery = countDeliveries(
    typeof options.delivery === 'function'
      ? options.delivery(sqlDelivery)
      : (options.delivery ?? sqlDelivery),
    metrics,
  );
  const projects = new ProjectsRepository(database.db);
  const admin = createAdmin(database.db, clock, wakeDispatcher);
  const sessions = new SessionsRepository(database.db);
  const clientDeps: ClientDeps = {
    projects,
    preferences,
    inbox: new InboxRepository(database.db),
    sessions,
    verifier: options.chainRpc ? chainVerifier(options.chainRpc) : eoaVerifier,
    chainId: options.chainId,
    publicOrigins,
    sessionTtlMs: limits.sessionTtlMs,
    clock,
  };
  const deps: DeveloperDeps = { projects, preferences, delivery, clock, newId: createUlidGenerator(clock) };

  const sendLog = new SendLogRepository(database.db);
  const sendLogMs = (options.sendLogDays ?? 30) * 24 * 60 * 60 * 1000;
  const pruneSendLog = () => sendLog.sweep(clock() - sendLogMs);
  app.decorate('platform', { database, admin, preferences, delivery, fanout, pruneSendLog });

  const webhookLogMs = (options.webhookLogDays ?? 30) * 24 * 60 * 60 * 1000;
  const sweep = setInterval(() => {
    sqlDelivery.sweep(clock()).catch((error) => app.log.warn({ err: error }, 'dedupe key sweep failed'));
    webhooksRepository
      .sweep(clock() - webhookLogMs)
      .catch((error) => app.log.warn({ err: error }, 'webhook log sweep failed'));
    sessions.sweep(clock()).catch((error) => app.log.warn({ err: error }, 'session sweep failed'));
    pruneSendLog().catch((error) => app.log.warn({ err: error }, 'send log sweep failed'));
  }, dedupeSweepMs);
  sweep.unref();
  app.addHook('onReady', async () => dispatcher.start());
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await relay.stop();
    await dispatcher.close();
    await rateLimitStore.close();
    await fanout.close();
    await database.close();
  });

  installErrorHandler(app);
  app.addSchema(ErrorBody);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'wharf notifications API',
        version: '1.0.0',
        description:
          'In-app notifications for mini apps: list the users who pinned an app, check one wallet, send. Every error answers {success: false, error, message}.',
      },
      // The developer API first: it is what a mini-app developer opens the reference for.
      tags: [
        {
          name: 'notifications',
          description: "The developer API: your app's users, one wallet's status, send",
        },
        { name: 'client', description: 'The platform app: sign-in, pins, inbox, live stream' },
        { name: 'dashboard', description: 'The developer dashboard: projects, keys, users, test sends' },
        { name: 'admin', description: 'The operator: projects, whitelisting, keys' },
      ],
      components: {
        securitySchemes: {
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'x-api-key',
            description: "The project's API key (`wharf project create`, or the dashboard)",
          },
          adminToken: { type: 'http', scheme: 'bearer' },
          session: {
            type: 'http',
            scheme: 'bearer',
            description: 'Session token from /api/v1/client/auth/verify',
          },
          dashboardSession: {
            type: 'http',
            scheme: 'bearer',
            description: 'Dashboard session token from /api/v1/dashboard/auth/verify',
          },
        },
      },
    },
    hideUntagged: true,
    // Name shared schemas by their $id (#/components/schemas/ErrorBody) rather than def-N.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
  });

  app.get('/healthz', async () => ({ ok: true }));
  registerMetrics(app, metrics);
  await app.register(readinessRoute, {
    database,
    redisPing: redisCounters ? () => redisCounters.ping() : undefined,
    timeoutMs: 2_000,
  });
  app.get('/api/v1/openapi.json', async () => app.swagger());
  await registerApiDocs(app);
  // What the platform app needs to reach the chain and to sign in (SIWE names this chain id),
  // so that `wharf up --chain-port/--chain-id` works in the browser without manual settings.
  app.get(
    '/api/v1/client/config',
    {
      schema: {
        tags: ['client'],
        summary: 'Chain the platform app talks to',
        response: {
          200: Type.Object({ chainId: Type.Integer(), chainRpcUrl: Type.Optional(Type.String()) }),
        },
      },
    },
    async () => ({
      chainId: options.chainId,
      ...(options.chainRpc ? { chainRpcUrl: options.chainRpc } : {}),
    }),
  );

  await app.register(developerRoutes, {
    deps,
    rateLimitStore,
    rateLimit: options.rateLimit,
    rateLimitWindowMs: options.rateLimitWindowMs ?? 60_000,
  });
  const rateLimitWindowMs = options.rateLimitWindowMs ?? 60_000;
  await app.register(adminRoutes, {
    admin,
    sendLog,
    adminToken: options.adminToken,
    rateLimitStore,
    rateLimit: limits.adminRateLimit,
    rateLimitWindowMs,
  });
  const streamLimits = {
    perSession: limits.streamsPerSession,
    perAddress: limits.streamsPerAddress,
    maxBufferBytes: limits.streamBufferBytes,
    heartbeatMs: limits.sseHeartbeatMs,
  };
  const streams = new StreamRegistry(streamLimits);
  metrics.watchStreams(() => streams.size);
  await app.register(clientRoutes, {
    deps: clientDeps,
    fanout,
    rateLimitStore,
    rateLimit: limits.clientRateLimit,
    ipRateLimit: limits.ipRateLimit,
    rateLimitWindowMs,
    stream: streamLimits,
    streams,
  });
  await app.register(dashboardRoutes, {
    deps: { admin, developer: deps, sendLog },
    sessions: clientDeps,
    rateLimitStore,
    dashboardRateLimit: limits.clientRateLimit,
    notificationRateLimit: options.rateLimit,
    ipRateLimit: limits.ipRateLimit,
    rateLimitWindowMs,
  });

  const apiNotFound = (method: string, url: string) =>
    new ServiceError('NOT_FOUND', `no route ${method} ${url.split('?')[0]}`);
  if (options.webRoot && fs.existsSync(path.join(options.webRoot, 'index.html'))) {
    installAppSecurityHeaders(app);
    await app.register(fastifyStatic, { root: path.resolve(options.webRoot), wildcard: false });
    // Client-side routes (/dashboard/..., /apps/...) load the single page; API paths stay 404.
    app.setNotFoundHandler((request, reply) => {
      if (request.method === 'GET' && !request.url.startsWith('/api/')) return reply.sendFile('index.html');
      throw apiNotFound(request.method, request.url);
    });
  } else {
    app.setNotFoundHandler((request) => {
      throw apiNotFound(request.method, request.url);
    });
  }
  return app;
}

/** The limit options that were given (undefined ones keep their defaults). */
function definedLimits(options: PlatformServerOptions): Partial<typeof platformLimitDefaults> {
  const given: Record<string, number> = {};
  for (const key of Object.keys(platformLimitDefaults) as Array<keyof typeof platformLimitDefaults>) {
    const value = (options as unknown as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      throw new Error(`${key} must be a positive number, got ${String(value)}`);
    given[key] = value;
  }
  return given;
}

/** Builds the platform app and listens on `host:port`. */
export async function startPlatformServer(options: PlatformServerOptions): Promise<PlatformServer> {
  const app = await buildPlatformApp(options);
  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    // The app already runs its outbox relay, sweeps and database pool: close them, or a failed
    // start (a port in use) leaves a process that never exits.
    await app.close().catch(() => {});
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  if (!options.publicUrl && !isLoopbackHost(options.host)) {
    app.log.warn(
      { host: options.host },
      'listening beyond this machine without --public-url: sign-in accepts only the loopback origins; set --public-url to the address people use',
    );
  }
  return {
    url,
    publicUrl: options.publicUrl ? parsePublicUrl(options.publicUrl) : `http://127.0.0.1:${port}`,
    close: () => app.close(),
  };
}
