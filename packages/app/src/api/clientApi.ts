/**
 * The client API of the platform app (design: Client API). Every call but the two auth ones
 * carries the bearer token from Sign-In with Ethereum.
 */
import type { PinnedApp, PlatformNotification } from '@wharf/sdk';
import { bearer, requestJson } from './http.js';

export interface CatalogApp {
  appUrl: string;
  /** The project's name. */
  name: string;
  /** The project's icon, when its developer set one. */
  iconUrl?: string | null;
}

/** The wire shapes are the SDK's (one definition for the app and every other client). */
export type { PinnedApp } from '@wharf/sdk';

export type InboxNotification = PlatformNotification;

export interface InboxPage {
  notifications: InboxNotification[];
  /** All unread notifications of the person (not only this page's). */
  unreadCount?: number;
  nextCursor?: string;
}

export interface ClientConfig {
  chainId?: number;
  chainRpcUrl?: string;
}

const base = '/api/v1/client';

/** Accepts camelCase or snake_case fields: the stored row and the wire may name them either way. */
export function toNotification(raw: unknown): InboxNotification | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const pick = (...keys: string[]) => keys.map((k) => r[k]).find((v) => v !== undefined && v !== null);
  const id = pick('id', 'notificationId');
  const appUrl = pick('appUrl', 'app_url');
  if (typeof id !== 'string' || typeof appUrl !== 'string') return undefined;
  const readAt = pick('readAt', 'read_at');
  return {
    id,
    appUrl,
    title: String(pick('title') ?? ''),
    message: String(pick('message') ?? ''),
    targetPath: (pick('targetPath', 'target_path') as string | undefined) ?? null,
    createdAt: String(pick('createdAt', 'created_at') ?? new Date().toISOString()),
    readAt: typeof readAt === 'string' ? readAt : pick('read') === true ? new Date(0).toISOString() : null,
  };
}

export function createClientApi(token: string) {
  const auth = bearer(token);
  return {
    catalog: () => requestJson<{ apps: CatalogApp[] }>(`${base}/catalog`, { headers: auth }),
    pinned: () => requestJson<{ apps: PinnedApp[] }>(`${base}/apps`, { headers: auth }),
    pin: (appUrl: string, notificationsEnabled: boolean) =>
      requestJson(`${base}/apps/pin`, {
        headers: auth,
        body: { app_url: appUrl, notifications_enabled: notificationsEnabled },
      }),
    unpin: (appUrl: string) =>
      requestJson(`${base}/apps/unpin`, { headers: auth, body: { app_url: appUrl } }),
    setNotifications: (appUrl: string, enabled: boolean) =>
      requestJson(`${base}/apps/notifications`, { headers: auth, body: { app_url: appUrl, enabled } }),
    async notifications(
      params: { cursor?: string; limit?: number; unread?: boolean } = {},
    ): Promise<InboxPage> {
      const page = await requestJson<{ notifications: unknown[]; unreadCount?: number; nextCursor?: string }>(
        `${base}/notifications`,
        {
          headers: auth,
          query: { cursor: params.cursor, limit: params.limit, unread: params.unread ? 'true' : undefined },
        },
      );
      return {
        notifications: page.notifications.map(toNotification).filter((n) => n !== undefined),
        unreadCount: page.unreadCount,
        nextCursor: page.nextCursor,
      };
    },
    markRead: (ids: string[] | 'all') =>
      requestJson<{ updated: number; unreadCount?: number }>(`${base}/notifications/read`, {
        headers: auth,
        body: ids === 'all' ? { all: true } : { ids },
      }),
  };
}

export type ClientApi = ReturnType<typeof createClientApi>;

/** Optional: the server may tell the app its chain (RPC URL, id); absent, the app uses defaults. */
export async function fetchClientConfig(): Promise<ClientConfig | undefined> {
  try {
    return await requestJson<ClientConfig>(`${base}/config`);
  } catch {
    return undefined;
  }
}
