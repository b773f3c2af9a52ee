/**
 * The client API of the platform app (design: Client API). Signed-in routes take
 * `Authorization: Bearer <session token>` and act on that wallet only; the stream alone also
 * takes `?access_token=` (EventSource cannot set headers; elsewhere a token in a URL would only
 * leak into logs and histories).
 *
 * Rate limits: sign-in routes per IP; signed-in routes per IP BEFORE the token is looked up (so
 * guessing tokens is limited too), then per session.
 */
import { type Static, Type } from '@fastify/type-provider-typebox';
import { issueSignInNonce } from '../auth/siwe.js';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import type { LiveFanout } from '../delivery/fanout.js';
import {
  authenticateSession,
  type ClientDeps,
  type ClientSession,
  listInbox,
  markInboxRead,
  pinApp,
  requireRegisteredAppUrl,
  pinnedApps,
  setAppNotifications,
  signIn,
  signOut,
  unpinApp,
} from '../domain/client.js';
import type { RateLimitStore } from '../ratelimit/store.js';
import { type StreamLimits, StreamRegistry, streamNotifications } from './notificationStream.js';
import { rateLimitHook } from './rateLimit.js';
import { limits } from '../domain/limits.js';
import { AppUrl, Ok } from './schemas.js';
import { schemaValidator } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    session?: ClientSession;
  }
}

export interface ClientRoutesOptions {
  deps: ClientDeps;
  fanout: LiveFanout;
  rateLimitStore: RateLimitStore;
  /** Requests per window per session (per IP on the sign-in routes). */
  rateLimit: number;
  /** Requests per window per IP on signed-in routes, counted before the token is checked. */
  ipRateLimit: number;
  rateLimitWindowMs: number;
  stream: StreamLimits;
  /** The open streams (the server reads their count for /metrics); default: a registry of its own. */
  streams?: StreamRegistry;
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

const streamPath = '/api/v1/client/notifications/stream';

const PinBody = Type.Object({ app_url: AppUrl, notifications_enabled: Type.Optional(Type.Boolean()) });
type PinBody = Static<typeof PinBody>;
const NotificationsBody = Type.Object({ app_url: AppUrl, enabled: Type.Boolean() });
type NotificationsBody = Static<typeof NotificationsBody>;
// The order of the properties is the order in which their 400s are reported.
const InboxQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: limits.inboxPageDefault,
      description: `Notifications per page; above ${limits.inboxPageMax} clamped to ${limits.inboxPageMax}`,
    }),
  ),
  unread: Type.Optional(Type.Boolean({ description: 'true: only unread notifications' })),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});
type InboxQuery = Static<typeof InboxQuery>;

function bearer(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice(7).trim() || undefined;
  if (request.routeOptions.url !== streamPath) return undefined;
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
    per: 'per IP',
  });
  const perIpBeforeToken = rateLimitHook(options.rateLimitStore, {
    limit: options.ipRateLimit,
    windowMs: options.rateLimitWindowMs,
    keyOf: (request) => `client-signed-in-ip:${request.ip}`,
    per: 'per IP',
  });
  const perSession = rateLimitHook(options.rateLimitStore, {
    limit: options.rateLimit,
    windowMs: options.rateLimitWindowMs,
    keyOf: (request) => `client:${request.session!.tokenHash}`,
    per: 'per session',
  });
  const signedIn = {
    onRequest: [
      perIpBeforeToken,
      async (request: FastifyRequest) => {
        request.session = await authenticateSession(deps, bearer(request));
      },
      perSession,
    ],
  };
  const streams = options.streams ?? new StreamRegistry(options.stream);
  app.addHook('preClose', async () => {
    // An open stream never goes idle: end it and drop its connection so close() need not wait.
    streams.endAll();
  });
  // Pins and the notifications switch validate with their schemas, after the app URL's 404 (a
  // valid but unregistered app_url is 404 whatever the rest of the body).
  const pinning = {
    ...signedIn,
    preValidation: async (request: FastifyRequest) => requireRegisteredAppUrl(deps, request.body),
    validatorCompiler: schemaValidator,
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
    // The message must name the configured public origin; the request's Host plays no part.
    async (request) => signIn(deps, request.body),
  );

  app.delete(
    '/api/v1/client/auth/session',
    {
      ...signedIn,
      schema: schema('Sign out: this session token answers 401 from now on; its streams end', {
        response: { 200: Ok, 401: err, 429: err },
      }),
    },
    async (request) => {
      const result = await signOut(deps, request.session!);
      streams.endSession(request.session!.tokenHash);
      return result;
    },
  );

  app.get(
    '/api/v1/client/catalog',
    {
      ...signedIn,
      schema: schema('Registered apps', {
        response: {
          200: Type.Object({
            apps: Type.Array(
              Type.Object({
                appUrl: Type.String(),
                name: Type.String({ description: "The project's name" }),
                iconUrl: Type.Union([Type.String(), Type.Null()], {
                  description: 'The project icon, if set',
                }),
              }),
            ),
          }),
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
      ...pinning,
      schema: schema('Pin an app (opts in unless notifications_enabled is false); idempotent', {
        body: PinBody,
        response: appStateResponses,
      }),
    },
    async (request) => pinApp(deps, address(request), request.body as PinBody),
  );
  app.post(
    '/api/v1/client/apps/unpin',
    {
      ...pinning,
      schema: schema('Unpin an app (notifications forced off); idempotent', {
        body: Type.Object({ app_url: AppUrl }),
        response: appStateResponses,
      }),
    },
    async (request) => unpinApp(deps, address(request), request.body as { app_url: string }),
  );
  app.post(
    '/api/v1/client/apps/notifications',
    {
      ...pinning,
      schema: schema('Enable or disable notifications of a pinned app (409 when not pinned)', {
        body: NotificationsBody,
        response: appStateResponses,
      }),
    },
    async (request) => setAppNotifications(deps, address(request), request.body as NotificationsBody),
  );

  app.get(
    '/api/v1/client/notifications',
    {
      ...signedIn,
      validatorCompiler: schemaValidator,
      schema: schema('The inbox, newest first', {
        querystring: InboxQuery,
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
    async (request) => listInbox(deps, address(request), request.query as InboxQuery),
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

  app.get(
    streamPath,
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
      const session = request.session!;
      streamNotifications(request, reply, {
        session,
        lastEventId,
        inbox: deps.inbox,
        fanout: options.fanout,
        registry: streams,
        limits: options.stream,
        sessionAlive: async () =>
          (await deps.sessions.findSession(session.tokenHash, deps.clock())) !== undefined,
        clock: deps.clock,
      });
    },
  );
}
