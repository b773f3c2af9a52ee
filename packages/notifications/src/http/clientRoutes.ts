/**
 * The client API of the platform app (design: Client API). Signed-in routes take
 * `Authorization: Bearer <session token>` (or `?access_token=` for EventSource, which cannot set
 * headers) and act on that wallet only. Rate-limited with its own budget: per session, or per IP
 * for the sign-in routes.
 */
import { Type } from '@sinclair/typebox';
import { issueSignInNonce } from '../auth/siwe.js';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { InboxRepository } from '../db/repositories/inbox.js';
import type { LiveFanout } from '../delivery/fanout.js';
import type { Notification } from '../delivery/path.js';
import {
  authenticateSession,
  type ClientDeps,
  listInbox,
  markInboxRead,
  pinApp,
  pinnedApps,
  setAppNotifications,
  signIn,
  toInboxItem,
  unpinApp,
} from '../domain/client.js';
import type { RateLimitStore } from '../ratelimit/store.js';
import { rateLimitHook } from './rateLimit.js';
import { RecentIds, ulidFloor } from './streamResync.js';

declare module 'fastify' {
  interface FastifyRequest {
    session?: { address: string; tokenHash: string };
  }
}

export interface ClientRoutesOptions {
  deps: ClientDeps;
  fanout: LiveFanout;
  rateLimitStore: RateLimitStore;
  rateLimit: number;
  rateLimitWindowMs: number;
  /** Milliseconds between SSE keep-alive comments. */
  heartbeatMs?: number;
}

const security = [{ session: [] }];
const err = { $ref: 'ErrorBody#' };
const AppState = Type.Object({
  appUrl: Type.String(),
  appPinned: Type.Boolean(),
  notificationsEnabled: Type.Boolean(),
});
const InboxItem = Type.Object({
  id: Type.String({ description: 'ULID; also the SSE event id' }),
  appUrl: Type.String(),
  title: Type.String(),
  message: Type.String(),
  targetPath: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  readAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const schema = (summary: string, extra: FastifySchema, signedIn = true): FastifySchema =>
  ({ tags: ['client'], summary, ...(signedIn ? { security } : {}), ...extra }) as FastifySchema;

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice(7).trim() || undefined;
  const query = request.query as Record<string, unknown> | undefined;
  return typeof query?.access_token === 'string' ? query.access_token : undefined;
}

export async function clientRoutes(app: FastifyInstance, options: ClientRoutesOptions): Promise<void> {
  const { deps } = options;
  app.setValidatorCompiler(() => () => true);
  const perIp = rateLimitHook(options.rateLimitStore, {
    limit: options.rateLimit,
    windowMs: options.rateLimitWindowMs,
    keyOf: (request) => `client-ip:${request.ip}`,
  });
  const perSession = rateLimitHook(options.rateLimitStore, {
    limit: options.rateLimit,
    windowMs: options.rateLimitWindowMs,
    keyOf: (request) => `client:${request.session!.tokenHash}`,
  });
  const signedIn = {
    onRequest: [
      async (request: FastifyRequest) => {
        request.session = await authenticateSession(deps, bearer(request));
      },
      perSession,
    ],
  };
  const address = (request: FastifyRequest) => request.session!.address;

  app.post(
    '/api/v1/client/auth/nonce',
    {
      onRequest: perIp,
      schema: schema(
        'A single-use Sign-In with Ethereum nonce (5 minutes)',
        {
          response: { 200: Type.Object({ nonce: Type.String() }), 429: err },
        },
        false,
      ),
    },
    async () => issueSignInNonce(deps),
  );

  app.post(
    '/api/v1/client/auth/verify',
    {
      onRequest: perIp,
      schema: schema(
        'Sign in: an EIP-4361 message and its signature -> a session token',
        {
          body: Type.Object({ message: Type.String(), signature: Type.String() }),
          response: {
            200: Type.Object({ token: Type.String(), address: Type.String(), expiresAt: Type.String() }),
            400: err,
            401: err,
            429: err,
          },
        },
        false,
      ),
    },
    // request.host: the Host header, or X-Forwarded-Host behind a trusted proxy.
    async (request) => signIn(deps, request.body, request.host),
  );

  app.get(
    '/api/v1/client/catalog',
    {
      ...signedIn,
      schema: schema('Registered apps', {
        response: {
          200: Type.Object({ apps: Type.Array(Type.Object({ appUrl: Type.String(), name: Type.String() })) }),
        },
      }),
    },
    async () => ({ apps: await deps.projects.catalog() }),
  );

  app.get(
    '/api/v1/client/apps',
    {
      ...signedIn,
      schema: schema('The apps this wallet pinned, newest pin first', {
        response: {
          200: Type.Object({
            apps: Type.Array(
              Type.Object({
                appUrl: Type.String(),
                notificationsEnabled: Type.Boolean(),
                pinnedAt: Type.String(),
              }),
            ),
          }),
          401: err,
        },
      }),
    },
    async (request) => pinnedApps(deps, address(request)),
  );

  const appStateResponses = { 200: AppState, 400: err, 401: err, 404: err, 409: err, 429: err };
  app.post(
    '/api/v1/client/apps/pin',
    {
      ...signedIn,
      schema: schema('Pin an app (opts in unless notifications_enabled is false); idempotent', {
        body: Type.Object({ app_url: Type.String(), notifications_enabled: Type.Optional(Type.Boolean()) }),
        response: appStateResponses,
      }),
    },
    async (request) => pinApp(deps, address(request), request.body),
  );
  app.post(
    '/api/v1/client/apps/unpin',
    {
      ...signedIn,
      schema: schema('Unpin an app (notifications forced off); idempotent', {
        body: Type.Object({ app_url: Type.String() }),
        response: appStateResponses,
      }),
    },
    async (request) => unpinApp(deps, address(request), request.body),
  );
  app.post(
    '/api/v1/client/apps/notifications',
    {
      ...signedIn,
      schema: schema('Enable or disable notifications of a pinned app (409 when not pinned)', {
        body: Type.Object({ app_url: Type.String(), enabled: Type.Boolean() }),
        response: appStateResponses,
      }),
    },
    async (request) => setAppNotifications(deps, address(request), request.body),
  );

  app.get(
    '/api/v1/client/notifications',
    {
      ...signedIn,
      schema: schema('The inbox, newest first', {
        querystring: Type.Object({
          cursor: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          unread: Type.Optional(Type.Boolean()),
        }),
        response: {
          200: Type.Object({
            notifications: Type.Array(InboxItem),
            unreadCount: Type.Integer(),
            nextCursor: Type.Optional(Type.String()),
          }),
          400: err,
          401: err,
        },
      }),
    },
    async (request) => listInbox(deps, address(request), request.query),
  );

  app.post(
    '/api/v1/client/notifications/read',
    {
      ...signedIn,
      schema: schema('Mark notifications read: {ids} or {all: true}', {
        body: Type.Object({
          ids: Type.Optional(Type.Array(Type.String())),
          all: Type.Optional(Type.Boolean()),
        }),
        response: {
          200: Type.Object({ updated: Type.Integer(), unreadCount: Type.Integer() }),
          400: err,
          401: err,
        },
      }),
    },
    async (request) => markInboxRead(deps, address(request), request.body),
  );

  const streams = new Set<FastifyReply>();
  app.addHook('preClose', async () => {
    // An open stream never goes idle: end it and drop its connection so close() need not wait.
    for (const reply of streams) {
      reply.raw.end();
      reply.raw.socket?.destroy();
    }
  });
  app.get(
    '/api/v1/client/notifications/stream',
    {
      ...signedIn,
      schema: schema(
        'Server-Sent Events: each delivered notification as `event: notification`, `id` = its ULID; resumes after Last-Event-ID',
        {
          querystring: Type.Object({
            access_token: Type.Optional(Type.String()),
            lastEventId: Type.Optional(Type.String()),
          }),
        },
      ),
    },
    async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const header = request.headers['last-event-id'];
      const lastEventId =
        typeof header === 'string' && header !== ''
          ? header
          : typeof query.lastEventId === 'string' && query.lastEventId !== ''
            ? query.lastEventId
            : undefined;
      streamNotifications(request, reply, {
        address: address(request),
        lastEventId,
        inbox: deps.inbox,
        fanout: options.fanout,
        heartbeatMs: options.heartbeatMs ?? 15_000,
        streams,
      });
    },
  );
}

/**
 * One SSE connection: subscribe first (buffering), replay what was missed after Last-Event-ID
 * from the inbox, then flush the buffer (skipping what the replay sent) and go live.
 */
/** Sends created this long before the link to Redis was lost are re-read too (clock skew, slow commits). */
const resyncMarginMs = 10_000;

function streamNotifications(
  request: FastifyRequest,
  reply: FastifyReply,
  options: {
    address: string;
    lastEventId?: string;
    inbox: InboxRepository;
    fanout: LiveFanout;
    heartbeatMs: number;
    streams: Set<FastifyReply>;
  },
): void {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.write('retry: 2000\n\n');
  options.streams.add(reply);

  // Written once per id: the outbox relay may push a notification again (docs/decisions/0170).
  const written = new RecentIds();
  const write = (n: Notification) => {
    if (written.has(n.id)) return;
    written.add(n.id);
    raw.write(`id: ${n.id}\nevent: notification\ndata: ${JSON.stringify(toInboxItem(n))}\n\n`);
  };
  // Pushes made while this instance had lost Redis never arrive: re-read the inbox from then.
  const openedAt = Date.now();
  const offReconnect = options.fanout.onReconnect((lostSince) => {
    const from = ulidFloor(Math.max(openedAt, lostSince - resyncMarginMs));
    options.inbox
      .since(
        options.address,
        options.lastEventId && options.lastEventId > from ? options.lastEventId : from,
        500,
      )
      .then((missed) => {
        if (!closed) for (const n of missed) write(n);
      })
      .catch((error) => request.log.warn({ err: error }, 'notification stream resync failed'));
  });
  let replaying = true;
  const buffered: Notification[] = [];
  const unsubscribe = options.fanout.subscribe(options.address, (n) => {
    if (replaying) buffered.push(n);
    else write(n);
  });
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), options.heartbeatMs);
  heartbeat.unref();
  let closed = false;
  raw.on('close', () => {
    closed = true;
    clearInterval(heartbeat);
    unsubscribe();
    offReconnect();
    options.streams.delete(reply);
  });

  (async () => {
    const replayed = new Set<string>();
    let after = options.lastEventId;
    while (after !== undefined && !closed) {
      const missed = await options.inbox.since(options.address, after, 500);
      for (const n of missed) {
        replayed.add(n.id);
        write(n);
      }
      after = missed.length === 500 ? missed[missed.length - 1]!.id : undefined;
    }
    replaying = false;
    buffered.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const n of buffered) if (!replayed.has(n.id)) write(n);
    buffered.length = 0;
  })().catch((error) => {
    request.log.warn({ err: error }, 'notification stream replay failed');
    raw.end();
  });
}
