/**
 * A project's webhook over HTTP, registered twice with the same shapes: under the admin API
 * (`/api/v1/admin/projects/:projectId/webhook...`, admin token) and under the dashboard API
 * (`/api/v1/dashboard/projects/:projectId/webhook...`, the owner's session; another developer's
 * project answers 404). The operations are the Admin's (webhooks/service.ts).
 */
import { Type } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest, FastifySchema, onRequestHookHandler } from 'fastify';
import type { Admin } from '../domain/admin.js';

export const WebhookInfo = Type.Object({
  projectId: Type.String(),
  url: Type.Union([Type.String(), Type.Null()], { description: 'null: no webhook' }),
  previousSecretExpiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'After a rotation: until then the old secret signs too (a second v1=)',
  }),
  updatedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export const WebhookWithSecret = Type.Object({
  projectId: Type.String(),
  url: Type.String(),
  secret: Type.Optional(
    Type.String({ description: 'The signing secret, shown once: when first set and at each rotation' }),
  ),
});

export const WebhookDelivery = Type.Object({
  id: Type.String({ description: 'The event id (ULID), as in the body' }),
  event: Type.String(),
  appUrl: Type.String(),
  walletAddress: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  lastAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  body: Type.String({ description: 'The JSON POSTed' }),
});

export interface WebhookRoutesOptions {
  /** e.g. /api/v1/admin/projects */
  base: string;
  tag: string;
  security: FastifySchema['security'];
  onRequest?: onRequestHookHandler | onRequestHookHandler[];
  /** Throws 404 when the asker may not touch the project. */
  authorize?: (request: FastifyRequest, projectId: string) => Promise<void>;
  admin: Admin;
}

const err = { $ref: 'ErrorBody#' };

export function registerWebhookRoutes(app: FastifyInstance, options: WebhookRoutesOptions): void {
  const { admin, base } = options;
  const path = `${base}/:projectId/webhook`;
  const Params = Type.Object({ projectId: Type.String() });
  const errors = { 401: err, 404: err, 429: err };
  const schema = (summary: string, extra: FastifySchema): FastifySchema =>
    ({ tags: [options.tag], summary, security: options.security, params: Params, ...extra }) as FastifySchema;
  const route = options.onRequest ? { onRequest: options.onRequest } : {};
  const projectOf = async (request: FastifyRequest) => {
    const { projectId } = request.params as { projectId: string };
    await options.authorize?.(request, projectId);
    return projectId;
  };
  const field = (body: unknown, name: string) =>
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;

  app.get(
    path,
    { ...route, schema: schema("The project's webhook", { response: { 200: WebhookInfo, ...errors } }) },
    async (request) => admin.getWebhook(await projectOf(request)),
  );

  app.put(
    path,
    {
      ...route,
      schema: schema(
        'Set the webhook URL (http or https). The first time, the signing secret is made and shown once',
        {
          body: Type.Object({ url: Type.String() }),
          response: { 200: WebhookWithSecret, 400: err, ...errors },
        },
      ),
    },
    async (request) => admin.setWebhook(await projectOf(request), field(request.body, 'url')),
  );

  app.delete(
    path,
    {
      ...route,
      schema: schema('Remove the webhook; queued events then fail', {
        response: { 200: Type.Object({ projectId: Type.String(), removed: Type.Boolean() }), ...errors },
      }),
    },
    async (request) => admin.removeWebhook(await projectOf(request)),
  );

  app.post(
    `${path}/secret/rotate`,
    {
      ...route,
      schema: schema('A new signing secret (shown once); the old one also signs for 24 h', {
        response: { 200: WebhookWithSecret, ...errors },
      }),
    },
    async (request) => admin.rotateWebhookSecret(await projectOf(request)),
  );

  app.get(
    `${path}/deliveries`,
    {
      ...route,
      schema: schema('The delivery log: events newest first, with their attempts', {
        querystring: Type.Object({
          cursor: Type.Optional(Type.String()),
          limit: Type.Optional(Type.Integer({ minimum: 1, default: 50, description: 'At most 200' })),
        }),
        response: {
          200: Type.Object({
            deliveries: Type.Array(WebhookDelivery),
            nextCursor: Type.Optional(Type.String()),
          }),
          400: err,
          ...errors,
        },
      }),
    },
    async (request) =>
      admin.listWebhookDeliveries(await projectOf(request), request.query as Record<string, unknown>),
  );

  app.post(
    `${path}/deliveries/:eventId/resend`,
    {
      ...route,
      schema: schema('Queue an event again (a new 24 h of retries)', {
        params: Type.Object({ projectId: Type.String(), eventId: Type.String() }),
        response: { 200: WebhookDelivery, ...errors },
      }),
    },
    async (request) =>
      admin.resendWebhookDelivery(await projectOf(request), (request.params as { eventId: string }).eventId),
  );
}
