/**
 * The dashboard's API (design: Admin and the dashboard): projects, app URLs, keys and the
 * operator's whitelist. A developer calls it with a SIWE bearer token, the operator with the
 * admin token; both go in the Authorization header. Route paths live only in this file.
 */
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
}

export interface IssuedKey {
  projectId: string;
  apiKey: string;
}

const base = '/api/v1/dashboard';

const projectPath = (id: string) => `${base}/projects/${encodeURIComponent(id)}`;

export function createDashboardApi(token: string) {
  const headers = bearer(token);
  return {
    projects: () => requestJson<{ projects: Project[] }>(`${base}/projects`, { headers }),
    project: (id: string) => requestJson<Project>(projectPath(id), { headers }),
    createProject: (input: { name: string; appUrl?: string }) =>
      requestJson<Project & { apiKey?: string }>(`${base}/projects`, {
        headers,
        body: { name: input.name, ...(input.appUrl ? { appUrls: [input.appUrl] } : {}) },
      }),
    deleteProject: (id: string) => requestJson(projectPath(id), { method: 'DELETE', headers }),
    addAppUrl: (id: string, appUrl: string) =>
      requestJson<{ appUrls: string[] }>(`${projectPath(id)}/app-urls`, { headers, body: { appUrl } }),
    removeAppUrl: (id: string, appUrl: string) =>
      requestJson<{ appUrls: string[] }>(`${projectPath(id)}/app-urls`, {
        method: 'DELETE',
        headers,
        body: { appUrl },
      }),
    /** Generates a key, replacing the current one (rotation): the old key stops at once. */
    generateKey: (id: string) =>
      requestJson<IssuedKey>(`${projectPath(id)}/keys`, { method: 'POST', headers, body: {} }),
    revokeKey: (id: string) => requestJson(`${projectPath(id)}/keys`, { method: 'DELETE', headers }),
    setWhitelisted: (id: string, whitelisted: boolean) =>
      requestJson(`${projectPath(id)}/whitelist`, { method: whitelisted ? 'PUT' : 'DELETE', headers }),
    users: (id: string, appUrl: string, params: { cursor?: string; limit?: number; enabledOnly?: boolean }) =>
      requestJson<{ users: { address: string; notificationsEnabled: boolean }[]; nextCursor?: string }>(
        `${projectPath(id)}/users`,
        {
          headers,
          query: {
            app_url: appUrl,
            cursor: params.cursor,
            limit: params.limit,
            notification_enabled: params.enabledOnly ? 'true' : undefined,
          },
        },
      ),
  };
}

export type DashboardApi = ReturnType<typeof createDashboardApi>;
