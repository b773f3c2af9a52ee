/**
 * The admin API: the operator's operations over HTTP (`Authorization: Bearer <admin token>`), the
 * same as the `wharf project|app|key` commands. Without a configured token every call is 401.
 */
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Admin } from '../domain/admin.js';
import { constantTimeEqual } from '../auth/apiKeys.js';
import { ServiceError } from '../errors.js';
import type { RateLimitStore } from '../ratelimit/store.js';
import { rateLimitHook } from './rateLimit.js';
import { registerWebhookRoutes } from './webhookRoutes.js';
import {
  AppUrls,
  CreatedProject,
  Ok,
  ProjectChanges,
  ProjectInfo,
  RevokedKeys,
  RotatedKey,
  SendLogQuerystring,
  SendLogResponse,
} from './schemas.js';
import type { SendLogRepository } from '../db/repositories/sendLog.js';
import { projectSends } from '../domain/sendLog.js';
import { Type } from '@fastify/type-provider-typebox';

export interface AdminRoutesOptions {
  admin: Admin;
  sendLog: SendLogRepository;
  adminToken?: string;
  rateLimitStore: RateLimitStore;
  /** Requests per window per IP, counted before the token is checked. */
  rateLimit: number;
  rateLimitWindowMs: number;
}

const errors = {
  400: { $ref: 'ErrorBody#' },
  401: { $ref: 'ErrorBody#' },
  404: { $ref: 'ErrorBody#' },
  409: { $ref: 'ErrorBody#' },
  429: { $ref: 'ErrorBody#' },
};
const security = [{ adminToken: [] }];
const Params = Type.Object({ projectId: Type.String() });

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

export async function adminRoutes(app: FastifyInstance, options: AdminRoutesOptions): Promise<void> {
  const { admin, adminToken } = options;
  app.setValidatorCompiler(() => () => true);
  // First the budget, then the token: guessing the token is limited like everything else.
  app.addHook(
    'onRequest',
    rateLimitHook(options.rateLimitStore, {
      limit: options.rateLimit,
      windowMs: options.rateLimitWindowMs,
      keyOf: (request) => `admin-ip:${request.ip}`,
      per: 'per IP',
    }),
  );
  app.addHook('onRequest', async (request) => {
    const header = request.headers.authorization;
    const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!adminToken || token === '' || !constantTimeEqual(token, adminToken)) {
      throw new ServiceError('ADMIN_TOKEN_INVALID', 'Authorization: Bearer <admin token> is required');
    }
  });

  const base = '/api/v1/admin/projects';
  const schema = (summary: string, extra: FastifySchema): FastifySchema =>
    ({ tags: ['admin'], summary, security, ...extra }) as FastifySchema;

  app.get(
    base,
    {
      schema: schema('List projects', {
        querystring: Type.Object({ owner: Type.Optional(Type.String()) }),
        response: { 200: Type.Object({ projects: Type.Array(ProjectInfo) }), ...errors },
      }),
    },
    async (request) => {
      const owner = field(request.query, 'owner');
      return { projects: await admin.listProjects(typeof owner === 'string' ? { owner } : {}) };
    },
  );

  app.post(
    base,
    {
      schema: schema('Create a project with its first app URL and API key (shown once)', {
        body: Type.Object({
          name: Type.String(),
          app_url: Type.String(),
          whitelisted: Type.Optional(Type.Boolean()),
          owner: Type.Optional(Type.String()),
        }),
        response: { 201: CreatedProject, ...errors },
      }),
    },
    async (request, reply) => {
      const body = request.body;
      const whitelisted = field(body, 'whitelisted');
      if (whitelisted !== undefined && typeof whitelisted !== 'boolean') {
        throw new ServiceError('VALIDATION_FAILED', 'whitelisted must be true or false');
      }
      const owner = field(body, 'owner');
      const created = await admin.createProject({
        name: field(body, 'name') as string,
        appUrl: field(body, 'app_url') as string,
        whitelisted: whitelisted === true,
        ...(typeof owner === 'string' ? { owner } : {}),
      });
      return reply.code(201).send(created);
    },
  );

  app.get(
    `${base}/:projectId`,
    { schema: schema('One project', { params: Params, response: { 200: ProjectInfo, ...errors } }) },
    async (request) => admin.getProject((request.params as { projectId: string }).projectId),
  );

  app.post(
    `${base}/:projectId/whitelist`,
    {
      schema: schema('Whitelist a project for notifications, or not', {
        params: Params,
        body: Type.Object({ whitelisted: Type.Boolean() }),
        response: { 200: ProjectInfo, ...errors },
      }),
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      const whitelisted = field(request.body, 'whitelisted');
      if (typeof whitelisted !== 'boolean')
        throw new ServiceError('VALIDATION_FAILED', 'whitelisted must be true or false');
      await admin.setWhitelisted(projectId, whitelisted);
      return admin.getProject(projectId);
    },
  );

  app.delete(
    `${base}/:projectId`,
    {
      schema: schema('Delete a project; its keys answer 404 from now on', {
        params: Params,
        response: { 200: Ok, ...errors },
      }),
    },
    async (request) => {
      await admin.deleteProject((request.params as { projectId: string }).projectId);
      return { success: true };
    },
  );

  app.post(
    `${base}/:projectId/app-urls`,
    {
      schema: schema('Register an app URL', {
        params: Params,
        body: Type.Object({ app_url: Type.String() }),
        response: { 200: AppUrls, ...errors },
      }),
    },
    async (request) =>
      admin.addAppUrl(
        (request.params as { projectId: string }).projectId,
        field(request.body, 'app_url') as string,
      ),
  );

  app.delete(
    `${base}/:projectId/app-urls`,
    {
      schema: schema('Remove an app URL', {
        params: Params,
        querystring: Type.Object({ app_url: Type.String() }),
        response: { 200: AppUrls, ...errors },
      }),
    },
    async (request) =>
      admin.removeAppUrl(
        (request.params as { projectId: string }).projectId,
        field(request.query, 'app_url') as string,
      ),
  );

  app.post(
    `${base}/:projectId/keys/rotate`,
    {
      schema: schema('Rotate the API key: old keys answer 401; the new key is shown once', {
        params: Params,
        response: { 200: RotatedKey, ...errors },
      }),
    },
    async (request) => admin.rotateKey((request.params as { projectId: string }).projectId),
  );

  app.delete(
    `${base}/:projectId/keys`,
    {
      schema: schema('Revoke every API key of the project (they answer 401); no new key', {
        params: Params,
        response: { 200: RevokedKeys, ...errors },
      }),
    },
    async (request) => admin.revokeKey((request.params as { projectId: string }).projectId),
  );

  app.patch(
    `${base}/:projectId`,
    {
      schema: schema("Change the project's name and icon URL (what the platform app shows)", {
        params: Params,
        body: ProjectChanges,
        response: { 200: ProjectInfo, ...errors },
      }),
    },
    async (request) =>
      admin.updateProject((request.params as { projectId: string }).projectId, {
        name: field(request.body, 'name'),
        iconUrl: field(request.body, 'icon_url'),
      }),
  );

  app.get(
    `${base}/:projectId/sends`,
    {
      schema: schema("A project's send log, newest first, with per-address results", {
        params: Params,
        querystring: SendLogQuerystring,
        response: { 200: SendLogResponse, ...errors },
      }),
    },
    async (request) => {
      const { projectId } = request.params as { projectId: string };
      await admin.getProject(projectId);
      return projectSends(options.sendLog, projectId, request.query);
    },
  );

  registerWebhookRoutes(app, { base, tag: 'admin', security, admin });
}
