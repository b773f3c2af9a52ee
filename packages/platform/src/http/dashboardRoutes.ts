/**
 * The developer dashboard API (/api/v1/dashboard): a developer signs in with their wallet (SIWE,
 * `auth/nonce` then `auth/verify`) and manages the projects they own with the operations of the
 * admin API — list, create, read, delete, app URLs, rotate and revoke keys — plus the developer
 * API's users, status and send for an owned project without its raw key. Whitelisting stays on
 * the admin API. A project the developer does not own answers 404, as a missing one does.
 *
 * Order of checks: rate limit (429; per IP before the token, then per session) and the session
 * (401), then ownership (404), then the body
 * (400), then the rules of the operation (403 app URL / whitelist, 409 conflict, 500/503).
 */
import { Type } from '@fastify/type-provider-typebox';
import { issueSignInNonce } from '../auth/siwe.js';
import type { FastifyInstance, FastifyRequest, FastifySchema } from 'fastify';
import {
  authenticateDeveloper,
  type DeveloperSession,
  type DeveloperSessionDeps,
  signInDeveloper,
  signOutDeveloper,
} from '../auth/developerSessions.js';
import {
  addOwnAppUrl,
  createOwnProject,
  type DashboardDeps,
  deleteOwnProject,
  getOwnProject,
  listOwnProjects,
  ownProjectSend,
  ownProjectUserStatus,
  ownProjectUsers,
  removeOwnAppUrl,
  requireOwnProject,
  revokeOwnKey,
  rotateOwnKey,
} from '../domain/dashboard.js';
import { ownProjectSends } from '../domain/sendLog.js';
import type { RateLimitStore } from '../ratelimit/store.js';
import { rateLimitHook } from './rateLimit.js';
import { schemaValidator } from './validation.js';
import { registerWebhookRoutes } from './webhookRoutes.js';
import {
  AppUrls,
  CreatedProject,
  Ok,
  ProjectChanges,
  ProjectInfo,
  RevokedKeys,
  RotatedKey,
  SendBody,
  type SendBody as SendBodyType,
  SendLogQuerystring,
  SendLogResponse,
  SendResponse,
  StatusBody,
  type StatusBody as StatusBodyType,
  StatusResponse,
  UsersQuerystring,
  type UsersQuerystring as UsersQuerystringType,
  UsersResponse,
} from './schemas.js';

declare module 'fastify' {
  interface FastifyRequest {
    developer?: DeveloperSession;
  }
}

export interface DashboardRoutesOptions {
  deps: DashboardDeps;
  sessions: DeveloperSessionDeps;
  rateLimitStore: RateLimitStore;
  /** Requests per window per session (per IP for sign-in): the client API's budget. */
  dashboardRateLimit: number;
  /** The notification endpoints' budget per IP, shared by users, status and send here. */
  notificationRateLimit: number;
  /** Requests per window per IP on signed-in routes, counted before the token is checked. */
  ipRateLimit: number;
  rateLimitWindowMs: number;
}

export const dashboardBase = '/api/v1/dashboard';

const err = { $ref: 'ErrorBody#' };
const security = [{ dashboardSession: [] }];
const Params = Type.Object({ projectId: Type.String() });
const schema = (summary: string, extra: FastifySchema, signedIn = true): FastifySchema =>
  ({ tags: ['dashboard'], summary, ...(signedIn ? { security } : {}), ...extra }) as FastifySchema;
const managed = { 401: err, 404: err, 429: err };

export async function dashboardRoutes(app: FastifyInstance, options: DashboardRoutesOptions): Promise<void> {
  const { deps, sessions } = options;
  // The domain rules validate (their 400s name the field and the rule); schemas document and shape.
  app.setValidatorCompiler(() => () => true);

  const perIp = rateLimitHook(options.rateLimitStore, {
    limit: options.dashboardRateLimit,
    windowMs: options.rateLimitWindowMs,
    keyOf: (request) => `dashboard-ip:${request.ip}`,
    per: 'per IP',
  });
  const perSession = rateLimitHook(options.rateLimitStore, {
    limit: options.dashboardRateLimit,
    windowMs: options.rateLimitWindowMs,
    keyOf: (request) => `dashboard:${request.developer!.tokenHash}`,
    per: 'per session',
  });
  // The same budget key as /api/v1/notifications/*: one budget for every notification endpoint.
  const notificationBudget = rateLimitHook(options.rateLimitStore, {
    limit: options.notificationRateLimit,
    windowMs: options.rateLimitWindowMs,
    log: app.log,
  });
  const perIpBeforeToken = rateLimitHook(options.rateLimitStore, {
    limit: options.ipRateLimit,
    windowMs: options.rateLimitWindowMs,
    keyOf: (request) => `dashboard-signed-in-ip:${request.ip}`,
    per: 'per IP',
  });
  const authenticate = async (request: FastifyRequest) => {
    request.developer = await authenticateDeveloper(sessions, request.headers.authorization);
  };
  // Every signed-in route counts the IP before the token is looked up: bad tokens are limited.
  const signedIn = { onRequest: [perIpBeforeToken, authenticate, perSession] };
  // users, status and send validate with their schemas (as the developer API does), after the
  // ownership check: another developer's project is 404 whatever the body (check order).
  const notifying = {
    onRequest: [notificationBudget, authenticate],
    preValidation: async (request: FastifyRequest) => {
      await requireOwnProject(deps, owner(request), projectId(request));
    },
    validatorCompiler: schemaValidator,
  };
  const owner = (request: FastifyRequest) => request.developer!.address;
  const projectId = (request: FastifyRequest) => (request.params as { projectId: string }).projectId;

  app.post(
    `${dashboardBase}/auth/nonce`,
    {
      onRequest: perIp,
      schema: schema(
        'A single-use Sign-In with Ethereum nonce (5 minutes) for the dashboard',
        { response: { 200: Type.Object({ nonce: Type.String() }), 429: err } },
        false,
      ),
    },
    async () => issueSignInNonce(sessions),
  );

  app.post(
    `${dashboardBase}/auth/verify`,
    {
      onRequest: perIp,
      schema: schema(
        'Sign in to the dashboard: an EIP-4361 message and its signature -> a dashboard session token (24 h)',
        {
          body: Type.Object({ message: Type.String(), signature: Type.String() }),
          response: {
            200: Type.Object({
              token: Type.String(),
              address: Type.String({ description: 'EIP-55; the owner of your projects' }),
              expiresAt: Type.String({ format: 'date-time' }),
            }),
            400: err,
            401: err,
            429: err,
          },
        },
        false,
      ),
    },
    // The message must name the configured public origin; the request's Host plays no part.
    async (request) => signInDeveloper(sessions, request.body),
  );

  app.delete(
    `${dashboardBase}/auth/session`,
    {
      ...signedIn,
      schema: schema('Sign out: this dashboard session token answers 401 from now on', {
        response: { 200: Ok, 401: err, 429: err },
      }),
    },
    async (request) => signOutDeveloper(sessions, request.developer!),
  );

  const projects = `${dashboardBase}/projects`;
  const project = `${projects}/:projectId`;

  app.get(
    projects,
    {
      ...signedIn,
      schema: schema('Your projects (owner = your address), oldest first', {
        response: { 200: Type.Object({ projects: Type.Array(ProjectInfo) }), 401: err, 429: err },
      }),
    },
    async (request) => ({ projects: await listOwnProjects(deps, owner(request)) }),
  );

  app.post(
    projects,
    {
      ...signedIn,
      schema: schema(
        'Create a project you own, with its first app URL and API key (shown once); not whitelisted',
        {
          body: Type.Object({
            name: Type.String({ maxLength: 100 }),
            app_url: Type.String({ description: 'https, or http on localhost' }),
            owner: Type.Optional(Type.String({ description: 'Only your own address' })),
          }),
          response: { 201: CreatedProject, 400: err, 401: err, 409: err, 429: err },
        },
      ),
    },
    async (request, reply) =>
      reply.code(201).send(await createOwnProject(deps, owner(request), request.body)),
  );

  app.get(
    project,
    {
      ...signedIn,
      schema: schema('One of your projects', { params: Params, response: { 200: ProjectInfo, ...managed } }),
    },
    async (request) => getOwnProject(deps, owner(request), projectId(request)),
  );

  app.delete(
    project,
    {
      ...signedIn,
      schema: schema('Delete one of your projects; its keys answer 404 from now on', {
        params: Params,
        response: { 200: Ok, ...managed },
      }),
    },
    async (request) => deleteOwnProject(deps, owner(request), projectId(request)),
  );

  app.post(
    `${project}/app-urls`,
    {
      ...signedIn,
      schema: schema('Register an app URL (normalized; https, or http on localhost)', {
        params: Params,
        body: Type.Object({ app_url: Type.String() }),
        response: { 200: AppUrls, 400: err, 409: err, ...managed },
      }),
    },
    async (request) => addOwnAppUrl(deps, owner(request), projectId(request), request.body),
  );

  app.delete(
    `${project}/app-urls`,
    {
      ...signedIn,
      schema: schema('Remove an app URL', {
        params: Params,
        querystring: Type.Object({ app_url: Type.String() }),
        response: { 200: AppUrls, 400: err, ...managed },
      }),
    },
    async (request) => removeOwnAppUrl(deps, owner(request), projectId(request), request.query),
  );

  app.post(
    `${project}/keys/rotate`,
    {
      ...signedIn,
      schema: schema('Generate a new API key (shown once); every older key answers 401', {
        params: Params,
        response: { 200: RotatedKey, ...managed },
      }),
    },
    async (request) => rotateOwnKey(deps, owner(request), projectId(request)),
  );

  app.delete(
    `${project}/keys`,
    {
      ...signedIn,
      schema: schema('Revoke every API key of the project (they answer 401); no new key', {
        params: Params,
        response: { 200: RevokedKeys, ...managed },
      }),
    },
    async (request) => revokeOwnKey(deps, owner(request), projectId(request)),
  );

  const notificationErrors = { 400: err, 401: err, 403: err, 404: err, 429: err };

  app.get(
    `${project}/users`,
    {
      ...notifying,
      schema: schema('The pages of GET /api/v1/notifications/app/users, for one of your projects', {
        params: Params,
        querystring: UsersQuerystring,
        response: { 200: UsersResponse, ...notificationErrors, 500: err },
      }),
    },
    async (request) =>
      ownProjectUsers(deps, owner(request), projectId(request), request.query as UsersQuerystringType),
  );

  app.post(
    `${project}/status`,
    {
      ...notifying,
      schema: schema('POST /api/v1/notifications/app/user/status, for one of your projects', {
        params: Params,
        body: StatusBody,
        response: { 200: StatusResponse, ...notificationErrors, 500: err },
      }),
    },
    async (request) =>
      ownProjectUserStatus(deps, owner(request), projectId(request), request.body as StatusBodyType),
  );

  app.post(
    `${project}/send`,
    {
      ...notifying,
      schema: schema(
        'A test send: POST /api/v1/notifications/send for one of your projects, without its API key',
        {
          params: Params,
          body: SendBody,
          response: { 200: SendResponse, ...notificationErrors, 503: err },
        },
      ),
    },
    async (request) => ownProjectSend(deps, owner(request), projectId(request), request.body as SendBodyType),
  );

  app.get(
    `${project}/sends`,
    {
      ...signedIn,
      schema: schema(
        "The send log: one of your projects' sends (key or dashboard), newest first, with per-address results",
        {
          params: Params,
          querystring: SendLogQuerystring,
          response: { 200: SendLogResponse, 400: err, ...managed },
        },
      ),
    },
    async (request) => ownProjectSends(deps, owner(request), projectId(request), request.query),
  );

  app.patch(
    project,
    {
      ...signedIn,
      schema: schema("Change one of your projects' name and icon URL (what the platform app shows)", {
        params: Params,
        body: ProjectChanges,
        response: { 200: ProjectInfo, 400: err, ...managed },
      }),
    },
    async (request) => {
      await requireOwnProject(deps, owner(request), projectId(request));
      const body = (request.body ?? {}) as Record<string, unknown>;
      return deps.admin.updateProject(projectId(request), { name: body.name, iconUrl: body.icon_url });
    },
  );

  registerWebhookRoutes(app, {
    base: projects,
    tag: 'dashboard',
    security,
    onRequest: signedIn.onRequest,
    authorize: async (request, id) => {
      await requireOwnProject(deps, owner(request), id);
    },
    admin: deps.admin,
  });
}
