/**
 * The developer REST API (spec: notifications-service.md). Thin: the route schemas validate the
 * input (`validation.ts`), the domain rules normalize it, one service answers. Order of checks:
 * rate limit (429) and the key (401/404) in onRequest, then the schema (400, in validation), then
 * ownership and whitelist (403), then the stores (500/503).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type AuthenticatedProject, authenticateApiKey } from '../auth/authenticate.js';
import type { DeveloperDeps } from '../domain/deps.js';
import { parseSendRequest, parseStatusRequest, parseUsersQuery } from '../domain/rules.js';
import { sendNotification } from '../domain/send.js';
import { userStatus } from '../domain/status.js';
import { listUsers } from '../domain/users.js';
import type { RateLimitStore } from '../ratelimit/store.js';
import { rateLimitHook } from './rateLimit.js';
import {
  developerErrors,
  SendBody,
  SendResponse,
  StatusBody,
  StatusResponse,
  UsersQuerystring,
  UsersResponse,
} from './schemas.js';
import { schemaValidator } from './validation.js';

declare module 'fastify' {
  interface FastifyRequest {
    project?: AuthenticatedProject;
  }
}

export interface DeveloperRoutesOptions {
  deps: DeveloperDeps;
  rateLimitStore: RateLimitStore;
  rateLimit: number;
  rateLimitWindowMs: number;
}

const security = [{ apiKey: [] }];

function projectOf(request: FastifyRequest): AuthenticatedProject {
  return request.project!;
}

export async function developerRoutes(
  scope: FastifyInstance,
  options: DeveloperRoutesOptions,
): Promise<void> {
  const { deps } = options;
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(schemaValidator);
  app.addHook(
    'onRequest',
    rateLimitHook(options.rateLimitStore, {
      limit: options.rateLimit,
      windowMs: options.rateLimitWindowMs,
      log: app.log,
    }),
  );
  app.addHook('onRequest', async (request) => {
    request.project = await authenticateApiKey(deps.projects, request.headers['x-api-key']);
  });

  app.get(
    '/api/v1/notifications/app/users',
    {
      schema: {
        tags: ['notifications'],
        summary: 'List the users who pinned the app',
        description:
          'Ordered by first pin time, then address. A walk with nextCursor visits every user pinned throughout it exactly once.',
        security,
        querystring: UsersQuerystring,
        response: { 200: UsersResponse, ...developerErrors, 500: { $ref: 'ErrorBody#' } },
      },
    },
    async (request) => listUsers(deps, projectOf(request), parseUsersQuery(request.query)),
  );

  app.post(
    '/api/v1/notifications/app/user/status',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Whether one wallet pinned the app and enabled notifications',
        security,
        body: StatusBody,
        response: { 200: StatusResponse, ...developerErrors, 500: { $ref: 'ErrorBody#' } },
      },
    },
    async (request) => userStatus(deps, projectOf(request), parseStatusRequest(request.body)),
  );

  app.post(
    '/api/v1/notifications/send',
    {
      schema: {
        tags: ['notifications'],
        summary: 'Send an in-app notification to 1 to 1,000 wallets',
        description:
          'One result per distinct address. An identical notification (app URL, address, title, message, target path) within 24 hours answers sent and pushes nothing.',
        security,
        body: SendBody,
        response: { 200: SendResponse, ...developerErrors, 503: { $ref: 'ErrorBody#' } },
      },
    },
    async (request) => sendNotification(deps, projectOf(request), parseSendRequest(request.body)),
  );
}
