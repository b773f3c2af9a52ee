/**
 * A typed client of the platform's client API (what the platform app uses): Sign-In with Ethereum,
 * pins and opt-ins, the inbox, and the live notification stream (Server-Sent Events read through
 * `fetch`, so it can send the bearer token and resume with Last-Event-ID; it reconnects by itself).
 */
import { createRequester } from './http.js';
import { streamNotifications, type StreamHandlers } from './notificationStream.js';
import { type Session, type SignInParameters, signInWithEthereum } from './siwe.js';
import type { AppState, CatalogApp, ClientConfig, InboxPage, PinnedApp } from './types.js';

export { formatSiweMessage } from './siwe.js';
export type { Session, SignInParameters } from './siwe.js';
export type { StreamHandlers, StreamState } from './notificationStream.js';
export type { AppState, PinnedApp, PlatformNotification } from './types.js';

export interface PlatformClientOptions {
  /** The platform's base URL, e.g. http://127.0.0.1:3000 ('' in a browser: the page's origin). */
  baseUrl: string;
  /** A session token from `signIn` (it also sets it). */
  token?: string;
  fetch?: typeof fetch;
}

export interface PlatformClient {
  readonly token: string | undefined;
  setToken(token: string | undefined): void;
  /** POST /api/v1/client/auth/nonce, then /verify with a signed EIP-4361 message. Sets the token. */
  signIn(parameters: SignInParameters): Promise<Session>;
  /** DELETE /api/v1/client/auth/session: the token answers 401 from now on; forgets it. */
  signOut(): Promise<void>;
  /** GET /api/v1/client/config (no session needed): the platform's chain. */
  config(): Promise<ClientConfig>;
  /** GET /api/v1/client/catalog: the registered apps. */
  catalog(): Promise<CatalogApp[]>;
  /** GET /api/v1/client/apps: the apps this wallet pinned, newest pin first. */
  apps(): Promise<PinnedApp[]>;
  /** POST /api/v1/client/apps/pin */
  pin(appUrl: string, options?: { notificationsEnabled?: boolean }): Promise<AppState>;
  /** POST /api/v1/client/apps/unpin */
  unpin(appUrl: string): Promise<AppState>;
  /** POST /api/v1/client/apps/notifications (409 when not pinned). */
  setNotifications(appUrl: string, enabled: boolean): Promise<AppState>;
  /** GET /api/v1/client/notifications: one page of the inbox, newest first. */
  notifications(query?: { cursor?: string; limit?: number; unread?: boolean }): Promise<InboxPage>;
  /** POST /api/v1/client/notifications/read */
  markRead(which: { ids: string[] } | { all: true }): Promise<{ updated: number; unreadCount: number }>;
  /** Streams delivered notifications until `signal` aborts (or a 401); resolves then. */
  stream(handlers: StreamHandlers): Promise<void>;
}

export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  let token = options.token;
  const requester = createRequester({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: (): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {}),
  });
  const base = '/api/v1/client';

  const client: PlatformClient = {
    get token() {
      return token;
    },
    setToken(next) {
      token = next;
    },

    async signIn(parameters) {
      const session = await signInWithEthereum(requester, `${base}/auth`, parameters);
      token = session.token;
      return session;
    },
    async signOut() {
      await requester.json({ method: 'DELETE', path: `${base}/auth/session` });
      token = undefined;
    },
    config() {
      return requester.json({ method: 'GET', path: `${base}/config` });
    },
    async catalog() {
      return (await requester.json<{ apps: CatalogApp[] }>({ method: 'GET', path: `${base}/catalog` })).apps;
    },
    async apps() {
      return (await requester.json<{ apps: PinnedApp[] }>({ method: 'GET', path: `${base}/apps` })).apps;
    },
    pin(appUrl, pinOptions = {}) {
      return requester.json({
        method: 'POST',
        path: `${base}/apps/pin`,
        body: { app_url: appUrl, notifications_enabled: pinOptions.notificationsEnabled },
      });
    },
    unpin(appUrl) {
      return requester.json({ method: 'POST', path: `${base}/apps/unpin`, body: { app_url: appUrl } });
    },
    setNotifications(appUrl, enabled) {
      return requester.json({
        method: 'POST',
        path: `${base}/apps/notifications`,
        body: { app_url: appUrl, enabled },
      });
    },
    notifications(query = {}) {
      return requester.json({
        method: 'GET',
        path: `${base}/notifications`,
        query: { cursor: query.cursor, limit: query.limit, unread: query.unread },
      });
    },
    markRead(which) {
      return requester.json({ method: 'POST', path: `${base}/notifications/read`, body: which });
    },
    stream(handlers) {
      return streamNotifications(requester, () => token, handlers);
    },
  };
  return client;
}
