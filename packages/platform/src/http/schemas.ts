/**
 * Route schemas of the developer and admin APIs. They document the API (OpenAPI 3.1 at
 * /api/v1/openapi.json), shape every response (nothing outside a schema reaches a body) and, for
 * the developer API and the dashboard's users/status/send, validate the request
 * (`validation.ts`: the 400 names the field and the rule). The limits are `domain/limits.ts`'s.
 */
import { type Static, Type } from '@fastify/type-provider-typebox';
import { limits } from '../domain/limits.js';
import { appUrlKeyword } from './validation.js';

export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.String({ description: "The spec's error code, e.g. 'Bad Request'" }),
    message: Type.String({ description: 'What was wrong: the field and the rule, or the cause' }),
  },
  { $id: 'ErrorBody', description: 'Every error answers this body' },
);

const errorRef = Type.Ref('ErrorBody');

export const developerErrors = {
  400: errorRef,
  401: errorRef,
  403: errorRef,
  404: errorRef,
  429: errorRef,
};

const Address = Type.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'EVM address, any letter case' });
/** Not blank after trimming (a blank text is missing). */
const notBlank = { minLength: 1, pattern: '\\S' };
export const AppUrl = Type.String({
  description: 'App URL as registered on the dashboard (http or https, absolute)',
  ...notBlank,
  [appUrlKeyword]: true,
});

export const UsersQuerystring = Type.Object({
  app_url: AppUrl,
  notification_enabled: Type.Optional(
    Type.Boolean({ description: 'true: only users with notifications enabled; false: no filter' }),
  ),
  cursor: Type.Optional(
    Type.String({ description: 'nextCursor of the previous page; omit for the first page' }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      default: limits.pageDefault,
      description: `Users per page; default ${limits.pageDefault}, above ${limits.pageMax} clamped to ${limits.pageMax}`,
    }),
  ),
});
export type UsersQuerystring = Static<typeof UsersQuerystring>;

export const UsersResponse = Type.Object({
  success: Type.Boolean(),
  users: Type.Array(
    Type.Object({
      address: Type.String({ description: 'EIP-55' }),
      notificationsEnabled: Type.Boolean(),
    }),
  ),
  nextCursor: Type.Optional(Type.String({ description: 'Absent on the last page' })),
});

export const StatusBody = Type.Object({
  app_url: AppUrl,
  wallet_address: Address,
});
export type StatusBody = Static<typeof StatusBody>;

export const StatusResponse = Type.Object({
  appPinned: Type.Boolean(),
  notificationsEnabled: Type.Boolean({ description: 'Always false when appPinned is false' }),
});

export const SendBody = Type.Object({
  app_url: AppUrl,
  wallet_addresses: Type.Array(Address, {
    minItems: limits.addressesMin,
    maxItems: limits.addressesMax,
    description: 'Duplicates (any letter case) collapse to one result, in first-seen order',
  }),
  title: Type.String({
    ...notBlank,
    maxLength: limits.titleMax,
    description: 'Code points; empty after trimming is missing',
  }),
  message: Type.String({
    ...notBlank,
    maxLength: limits.messageMax,
    description: 'Code points; empty after trimming is missing',
  }),
  target_path: Type.Optional(
    // null is the same as absent.
    Type.Unsafe<string | null>({
      type: ['string', 'null'],
      maxLength: limits.targetPathMax,
      pattern: '^/(?![/\\\\])',
      description: "Starts with '/', not '//' or '/\\'; omitted or null: the app opens at its root URL",
    }),
  ),
});
export type SendBody = Static<typeof SendBody>;

export const SendResponse = Type.Object({
  success: Type.Boolean({ description: 'true only when every address was delivered' }),
  results: Type.Array(
    Type.Object({
      walletAddress: Type.String({ description: 'EIP-55' }),
      sent: Type.Boolean(),
      failureReason: Type.Optional(
        Type.Union([
          Type.Literal('user has not saved this app'),
          Type.Literal('user has notifications disabled'),
        ]),
      ),
    }),
  ),
  sentCount: Type.Integer(),
  failedCount: Type.Integer(),
});

export const ProjectInfo = Type.Object({
  projectId: Type.String(),
  name: Type.String(),
  owner: Type.Union([Type.String(), Type.Null()]),
  whitelisted: Type.Boolean(),
  appUrls: Type.Array(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  hasKey: Type.Boolean({ description: 'Whether the project has a live API key' }),
  iconUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'Shown with the name in the platform app (inbox, catalog); null: none',
  }),
});

export const ProjectChanges = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: limits.projectNameMax })),
  icon_url: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'https, or http on localhost; null or empty removes it',
    }),
  ),
});

export const CreatedProject = Type.Object({
  projectId: Type.String(),
  apiKey: Type.String({ description: 'Shown once; only its SHA-256 is stored' }),
  appUrls: Type.Array(Type.String()),
  whitelisted: Type.Boolean(),
});

export const RotatedKey = Type.Object({ projectId: Type.String(), apiKey: Type.String() });
export const RevokedKeys = Type.Object({
  projectId: Type.String(),
  revoked: Type.Integer({ description: 'Live keys revoked (0 when there were none)' }),
});
export const AppUrls = Type.Object({ appUrls: Type.Array(Type.String()) });
export const Ok = Type.Object({ success: Type.Boolean() });

export const SendLogQuerystring = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Sends per page' }),
  ),
  before: Type.Optional(
    Type.String({ description: 'nextCursor of the previous page (older sends); omit for the newest' }),
  ),
});

export const SendLogResponse = Type.Object({
  sends: Type.Array(
    Type.Object({
      id: Type.String(),
      createdAt: Type.String({ format: 'date-time' }),
      appUrl: Type.String(),
      title: Type.String(),
      targetPath: Type.Union([Type.String(), Type.Null()]),
      sentBy: Type.Union([Type.Literal('key'), Type.Literal('dashboard')], {
        description: "key: the developer API with the project's key; dashboard: a test send",
      }),
      sentCount: Type.Integer(),
      failedCount: Type.Integer(),
      results: Type.Array(
        Type.Object({
          walletAddress: Type.String({ description: 'EIP-55' }),
          sent: Type.Boolean(),
          failureReason: Type.Optional(Type.String()),
        }),
      ),
    }),
  ),
  nextCursor: Type.Optional(Type.String({ description: 'Absent on the last page' })),
});
