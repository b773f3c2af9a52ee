/**
 * @wharf/sdk — a typed client of the wharf notifications API (v1): list the users who pinned an
 * app, check one wallet, send notifications. Depends on nothing but `fetch`.
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
export type * from './types.js';
