/**
 * @wharf/sdk — typed clients of the wharf platform API (v1): the developer API (list the users
 * who pinned an app, check one wallet, send notifications), the platform app's client API (sign
 * in, pins, inbox, live stream), the admin and dashboard APIs (projects, app URLs, keys,
 * webhooks, the send log), and webhook verification. Runs on `fetch` (Node 20+, browsers).
 */
export const API_VERSION = 'v1';
export { createNotificationsClient, MAX_ADDRESSES_PER_REQUEST } from './client.js';
export type {
  NotificationsClient,
  NotificationsClientOptions,
  RetryOptions,
  RequestOptions,
} from './client.js';
export {
  apiErrorCodes,
  ERROR_CODE_HEADER,
  WebhookVerificationError,
  webhookVerificationReasons,
  WharfApiError,
} from './errors.js';
export type { ApiErrorCode, WebhookVerificationReason } from './errors.js';
export { createPlatformClient, formatSiweMessage } from './platform.js';
export type {
  PlatformClient,
  PlatformClientOptions,
  Session,
  SignInParameters,
  StreamHandlers,
  StreamState,
} from './platform.js';
export { createDashboardClient } from './dashboard.js';
export type {
  DashboardClient,
  DashboardClientOptions,
  DashboardRole,
  ProjectNotifications,
} from './dashboard.js';
export { verifyWebhook, WEBHOOK_SIGNATURE_HEADER } from './webhooks.js';
export type { VerifyWebhookOptions, WebhookEvent, WebhookEventName } from './webhooks.js';
export type * from './types.js';
