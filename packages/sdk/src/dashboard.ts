/**
 * A typed client of the project management APIs: the operator's admin API (/api/v1/admin, the
 * admin token as bearer) and a developer's dashboard API (/api/v1/dashboard, a SIWE session as
 * bearer; only their own projects, another's answers 404). Both offer the same operations on a
 * project; whitelisting is the operator's, sign-in and the key-less users/status/send the
 * developer's.
 */
import type { NotificationsClient } from './client.js';
import { createRequester } from './http.js';
import { type Session, type SignInParameters, signInWithEthereum } from './siwe.js';
import type {
  CreatedProject,
  Project,
  RevokedKeys,
  RotatedKey,
  SendLogEntry,
  WebhookDelivery,
  WebhookInfo,
  WebhookWithSecret,
} from './types.js';

/** operator: the admin API with the admin token; developer: the dashboard API with a session. */
export type DashboardRole = 'operator' | 'developer';

export interface DashboardClientOptions {
  /** The platform's base URL, e.g. http://127.0.0.1:3000 ('' in a browser: the page's origin). */
  baseUrl: string;
  role: DashboardRole;
  /** The admin token (operator) or a dashboard session token (developer; `signIn` sets it). */
  token?: string;
  fetch?: typeof fetch;
}

/** The users list, one wallet's status and send of one project: the developer API's answers. */
export type ProjectNotifications = Pick<NotificationsClient, 'listUsers' | 'userStatus' | 'send'>;

export interface DashboardClient {
  readonly role: DashboardRole;
  readonly token: string | undefined;
  setToken(token: string | undefined): void;
  /** Developer: POST /api/v1/dashboard/auth/nonce, then /verify (SIWE). Sets the token. */
  signIn(parameters: SignInParameters): Promise<Session>;
  /** Developer: DELETE /api/v1/dashboard/auth/session; forgets the token. */
  signOut(): Promise<void>;
  /** GET .../projects */
  projects(): Promise<Project[]>;
  /** GET .../projects/:id */
  project(projectId: string): Promise<Project>;
  /** POST .../projects: a project with its first app URL; the answer carries its first key. */
  createProject(input: { name: string; appUrl: string; owner?: string }): Promise<CreatedProject>;
  /** PATCH .../projects/:id: the name, and the icon URL (null or '' removes it). */
  updateProject(projectId: string, changes: { name?: string; iconUrl?: string | null }): Promise<Project>;
  /** DELETE .../projects/:id: its keys answer 404 from now on. */
  deleteProject(projectId: string): Promise<void>;
  /** POST .../projects/:id/app-urls */
  addAppUrl(projectId: string, appUrl: string): Promise<{ appUrls: string[] }>;
  /** DELETE .../projects/:id/app-urls?app_url= */
  removeAppUrl(projectId: string, appUrl: string): Promise<{ appUrls: string[] }>;
  /** POST .../projects/:id/keys/rotate: a new key; the previous one stops at once. */
  rotateKey(projectId: string): Promise<RotatedKey>;
  /** DELETE .../projects/:id/keys: every live key answers 401; no new one. */
  revokeKey(projectId: string): Promise<RevokedKeys>;
  /** GET .../projects/:id/webhook */
  webhook(projectId: string): Promise<WebhookInfo>;
  /** PUT .../projects/:id/webhook: the first time, the answer carries the signing secret. */
  setWebhook(projectId: string, url: string): Promise<WebhookWithSecret>;
  /** DELETE .../projects/:id/webhook */
  removeWebhook(projectId: string): Promise<void>;
  /** POST .../projects/:id/webhook/secret/rotate: a new secret; the old one signs for a while. */
  rotateWebhookSecret(projectId: string): Promise<WebhookWithSecret>;
  /** GET .../projects/:id/webhook/deliveries, newest first. */
  webhookDeliveries(
    projectId: string,
    page?: { cursor?: string; limit?: number },
  ): Promise<{ deliveries: WebhookDelivery[]; nextCursor?: string }>;
  /** POST .../projects/:id/webhook/deliveries/:eventId/resend */
  resendWebhookDelivery(projectId: string, eventId: string): Promise<WebhookDelivery>;
  /** GET .../projects/:id/sends: the send log, newest first; `before` is a previous nextCursor. */
  sends(
    projectId: string,
    page?: { before?: string; limit?: number },
  ): Promise<{ sends: SendLogEntry[]; nextCursor?: string }>;
  /** Operator: POST /api/v1/admin/projects/:id/whitelist */
  setWhitelisted(projectId: string, whitelisted: boolean): Promise<Project>;
  /**
   * Developer: the users, one wallet's status and test sends of an own project without its API
   * key (/api/v1/dashboard/projects/:id/{users,status,send}); the same answers and rate budget as
   * the developer API.
   */
  projectNotifications(projectId: string): ProjectNotifications;
}

const apiBase: Record<DashboardRole, string> = {
  operator: '/api/v1/admin',
  developer: '/api/v1/dashboard',
};

export function createDashboardClient(options: DashboardClientOptions): DashboardClient {
  let token = options.token;
  const requester = createRequester({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    headers: (): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {}),
  });
  const { json } = requester;
  const base = apiBase[options.role];
  const projects = `${base}/projects`;
  const projectPath = (id: string) => `${projects}/${encodeURIComponent(id)}`;

  return {
    role: options.role,
    get token() {
      return token;
    },
    setToken(next) {
      token = next;
    },
    async signIn(parameters) {
      const session = await signInWithEthereum(requester, `${apiBase.developer}/auth`, parameters);
      token = session.token;
      return session;
    },
    async signOut() {
      await json({ method: 'DELETE', path: `${apiBase.developer}/auth/session` });
      token = undefined;
    },
    async projects() {
      return (await json<{ projects: Project[] }>({ method: 'GET', path: projects })).projects;
    },
    project: (id) => json({ method: 'GET', path: projectPath(id) }),
    createProject: (input) =>
      json({
        method: 'POST',
        path: projects,
        body: { name: input.name, app_url: input.appUrl, owner: input.owner },
      }),
    updateProject: (id, changes) =>
      json({
        method: 'PATCH',
        path: projectPath(id),
        body: { name: changes.name, icon_url: changes.iconUrl },
      }),
    async deleteProject(id) {
      await json({ method: 'DELETE', path: projectPath(id) });
    },
    addAppUrl: (id, appUrl) =>
      json({ method: 'POST', path: `${projectPath(id)}/app-urls`, body: { app_url: appUrl } }),
    removeAppUrl: (id, appUrl) =>
      json({ method: 'DELETE', path: `${projectPath(id)}/app-urls`, query: { app_url: appUrl } }),
    rotateKey: (id) => json({ method: 'POST', path: `${projectPath(id)}/keys/rotate`, body: {} }),
    revokeKey: (id) => json({ method: 'DELETE', path: `${projectPath(id)}/keys` }),
    webhook: (id) => json({ method: 'GET', path: `${projectPath(id)}/webhook` }),
    setWebhook: (id, url) => json({ method: 'PUT', path: `${projectPath(id)}/webhook`, body: { url } }),
    async removeWebhook(id) {
      await json({ method: 'DELETE', path: `${projectPath(id)}/webhook` });
    },
    rotateWebhookSecret: (id) =>
      json({ method: 'POST', path: `${projectPath(id)}/webhook/secret/rotate`, body: {} }),
    webhookDeliveries: (id, page = {}) =>
      json({ method: 'GET', path: `${projectPath(id)}/webhook/deliveries`, query: page }),
    resendWebhookDelivery: (id, eventId) =>
      json({
        method: 'POST',
        path: `${projectPath(id)}/webhook/deliveries/${encodeURIComponent(eventId)}/resend`,
        body: {},
      }),
    sends: (id, page = {}) => json({ method: 'GET', path: `${projectPath(id)}/sends`, query: page }),
    setWhitelisted: (id, whitelisted) =>
      json({
        method: 'POST',
        path: `${apiBase.operator}/projects/${encodeURIComponent(id)}/whitelist`,
        body: { whitelisted },
      }),
    projectNotifications(id) {
      const path = `${apiBase.developer}/projects/${encodeURIComponent(id)}`;
      return {
        listUsers: (parameters, requestOptions) =>
          json({
            method: 'GET',
            path: `${path}/users`,
            query: {
              app_url: parameters.appUrl,
              notification_enabled: parameters.notificationEnabled,
              cursor: parameters.cursor,
              limit: parameters.limit,
            },
            signal: requestOptions?.signal,
          }),
        userStatus: (parameters, requestOptions) =>
          json({
            method: 'POST',
            path: `${path}/status`,
            body: { app_url: parameters.appUrl, wallet_address: parameters.walletAddress },
            signal: requestOptions?.signal,
          }),
        send: (parameters, requestOptions) =>
          json({
            method: 'POST',
            path: `${path}/send`,
            body: {
              app_url: parameters.appUrl,
              wallet_addresses: parameters.walletAddresses,
              title: parameters.title,
              message: parameters.message,
              target_path: parameters.targetPath,
            },
            signal: requestOptions?.signal,
          }),
      };
    },
  };
}
