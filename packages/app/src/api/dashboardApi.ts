/**
 * The dashboard's API (design: Admin and the dashboard): projects, app URLs, keys and the
 * operator's whitelist. The operator calls the admin API (/api/v1/admin, bearer admin token); a
 * developer calls the same operations on their own projects with a SIWE bearer token
 * (/api/v1/dashboard). Route paths and body shapes live only in this file.
 */
import type { NotificationsApi, SendInput } from './developerApi.js';
import { bearer, requestJson } from './http.js';

export interface Project {
  projectId: string;
  name: string;
  owner: string | null;
  whitelisted: boolean;
  appUrls: string[];
  createdAt: string;
  /** Whether the project has a live API key (when the server says). */
  hasKey?: boolean;
  /** The icon the platform app shows with the name. */
  iconUrl?: string | null;
}

export interface IssuedKey {
  projectId: string;
  apiKey: string;
}

export interface Webhook {
  projectId: string;
  url: string | null;
  previousSecretExpiresAt: string | null;
  updatedAt: string | null;
}

export interface WebhookWithSecret {
  projectId: string;
  url: string;
  /** Shown once: when the webhook is first set, and at each rotation. */
  secret?: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  appUrl: string;
  walletAddress: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
  body: string;
}

export type DashboardRole = 'operator' | 'developer';

export const dashboardBase: Record<DashboardRole, string> = {
  operator: '/api/v1/admin',
  developer: '/api/v1/dashboard',
};

export function createDashboardApi(token: string, role: DashboardRole) {
  const headers = bearer(token);
  const base = `${dashboardBase[role]}/projects`;
  const projectPath = (id: string) => `${base}/${encodeURIComponent(id)}`;
  return {
    projects: () => requestJson<{ projects: Project[] }>(base, { headers }),
    project: (id: string) => requestJson<Project>(projectPath(id), { headers }),
    /** Creates a project with its first app URL; the answer carries its first API key (shown once). */
    createProject: (input: { name: string; appUrl: string; owner?: string }) =>
      requestJson<IssuedKey & { appUrls: string[]; whitelisted: boolean }>(base, {
        headers,
        body: { name: input.name, app_url: input.appUrl, ...(input.owner ? { owner: input.owner } : {}) },
      }),
    /** The name and icon URL the platform app shows (null or '' removes the icon). */
    updateProject: (id: string, changes: { name?: string; iconUrl?: string | null }) =>
      requestJson<Project>(projectPath(id), {
        method: 'PATCH',
        headers,
        body: {
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.iconUrl !== undefined ? { icon_url: changes.iconUrl } : {}),
        },
      }),
    deleteProject: (id: string) => requestJson(projectPath(id), { method: 'DELETE', headers }),
    addAppUrl: (id: string, appUrl: string) =>
      requestJson<{ appUrls: string[] }>(`${projectPath(id)}/app-urls`, {
        headers,
        body: { app_url: appUrl },
      }),
    removeAppUrl: (id: string, appUrl: string) =>
      requestJson<{ appUrls: string[] }>(`${projectPath(id)}/app-urls`, {
        method: 'DELETE',
        headers,
        query: { app_url: appUrl },
      }),
    /** Generates a new key; the previous one stops at once (rotation). */
    rotateKey: (id: string) =>
      requestJson<IssuedKey>(`${projectPath(id)}/keys/rotate`, { method: 'POST', headers, body: {} }),
    /** Revokes every live key (they answer 401); no new one. */
    revokeKey: (id: string) =>
      requestJson<{ projectId: string; revoked: number }>(`${projectPath(id)}/keys`, {
        method: 'DELETE',
        headers,
      }),
    webhook: (id: string) => requestJson<Webhook>(`${projectPath(id)}/webhook`, { headers }),
    /** Sets the URL; the first time the answer carries the signing secret (shown once). */
    setWebhook: (id: string, url: string) =>
      requestJson<WebhookWithSecret>(`${projectPath(id)}/webhook`, { method: 'PUT', headers, body: { url } }),
    removeWebhook: (id: string) => requestJson(`${projectPath(id)}/webhook`, { method: 'DELETE', headers }),
    rotateWebhookSecret: (id: string) =>
      requestJson<WebhookWithSecret>(`${projectPath(id)}/webhook/secret/rotate`, {
        method: 'POST',
        headers,
        body: {},
      }),
    webhookDeliveries: (id: string, cursor?: string) =>
      requestJson<{ deliveries: WebhookDelivery[]; nextCursor?: string }>(
        `${projectPath(id)}/webhook/deliveries`,
        {
          headers,
          query: { cursor, limit: 50 },
        },
      ),
    resendWebhookDelivery: (id: string, eventId: string) =>
      requestJson<WebhookDelivery>(
        `${projectPath(id)}/webhook/deliveries/${encodeURIComponent(eventId)}/resend`,
        { method: 'POST', headers, body: {} },
      ),
    setWhitelisted: (id: string, whitelisted: boolean) =>
      requestJson<Project>(`${projectPath(id)}/whitelist`, { headers, body: { whitelisted } }),
  };
}

export type DashboardApi = ReturnType<typeof createDashboardApi>;

/**
 * A developer's own project's users, status and test sends through the dashboard API (their
 * session, no API key): the same answers as /api/v1/notifications/*, the same rate budget.
 */
export function createProjectNotificationsApi(token: string, projectId: string): NotificationsApi {
  const headers = bearer(token);
  const path = `${dashboardBase.developer}/projects/${encodeURIComponent(projectId)}`;
  return {
    users: (appUrl, params = {}) =>
      requestJson(`${path}/users`, {
        headers,
        query: {
          app_url: appUrl,
          cursor: params.cursor,
          limit: params.limit,
          notification_enabled: params.enabledOnly ? 'true' : undefined,
        },
      }),
    status: (appUrl, walletAddress) =>
      requestJson(`${path}/status`, { headers, body: { app_url: appUrl, wallet_address: walletAddress } }),
    send: (input: SendInput) =>
      requestJson(`${path}/send`, {
        headers,
        body: {
          app_url: input.appUrl,
          wallet_addresses: input.walletAddresses,
          title: input.title,
          message: input.message,
          ...(input.targetPath ? { target_path: input.targetPath } : {}),
        },
      }),
  };
}
