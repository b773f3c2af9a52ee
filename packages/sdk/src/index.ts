/**
 * @wharf/sdk — typed clients of the wharf notifications API (v1): the developer API (list the
 * users who pinned an app, check one wallet, send notifications) and the platform app's client API
 * (sign in, pins, inbox, live stream). Depends on nothing but `fetch`.
 */
export const API_VERSION = 'v1';
export { createNotificationsClient, MAX_ADDRESSES_PER_REQUEST } from './client.js';
export type {
  NotificationsClient,
  NotificationsClientOptions,
  RetryOptions,
  RequestOptions,
} from './client.js';
export { WharfApiError } from './errors.js';
export { createPlatformClient, formatSiweMessage } from './platform.js';
export type {
  AppState,
  PinnedApp,
  PlatformClient,
  PlatformClientOptions,
  PlatformNotification,
  Session,
  SignInParameters,
  StreamHandlers,
} from './platform.js';
export { verifyWebhook, WebhookVerificationError, WEBHOOK_SIGNATURE_HEADER } from './webhooks.js';
export type { VerifyWebhookOptions, WebhookEvent, WebhookEventName } from './webhooks.js';
export type * from './types.js';
