/**
 * The operator's operations on projects, keys and app URLs: used by the `wharf project|app|key`
 * commands (through `openAdmin`, on the same store while the service runs) and by the admin HTTP
 * API (through `createAdmin` on the server's store). Failures are `ServiceError`s whose message
 * says what was wrong (code NOT_FOUND, CONFLICT or VALIDATION_FAILED).
 */
import { generateApiKey, hashSecret } from '../auth/apiKeys.js';
import { type Db, openDatabase } from '../db/database.js';
import { type ProjectRow, ProjectsRepository } from '../db/repositories/projects.js';
import { isAddress, toChecksumAddress } from './addresses.js';
import { normalizeRegisteredAppUrl } from './appUrl.js';
import { createUlidGenerator } from './ulid.js';
import { codePointLength, limits } from './limits.js';
import { invalid, ServiceError } from '../errors.js';
import { WebhooksRepository } from '../webhooks/repository.js';
import { type WebhookOperations, webhookOperations } from '../webhooks/service.js';

/** Where the admin operations find the store: the data dir's SQLite, or PostgreSQL. */
export interface AdminStoreOptions {
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema (default `public`). */
  databaseSchema?: string;
}
export interface CreatedProject {
  projectId: string;
  /** Shown once; only its SHA-256 is stored. */
  apiKey: string;
  appUrls: string[];
  whitelisted: boolean;
}
export interface RotatedKey {
  projectId: string;
  apiKey: string;
}
export interface RevokedKeys {
  projectId: string;
  /** How many live keys were revoked (0 when the project had none). */
  revoked: number;
}
export interface ProjectInfo {
  projectId: string;
  name: string;
  owner: string | null;
  whitelisted: boolean;
  appUrls: string[];
  /** ISO 8601. */
  createdAt: string;
  /** Whether the project has a live API key (none after a revoke, until the next rotate). */
  hasKey: boolean;
  /** The icon the platform app shows with the project's name; null: the name's first letter. */
  iconUrl: string | null;
}
/** The operator's operations, shared by the `wharf project|app|key` commands and the admin API. */
export interface Admin extends WebhookOperations {
  /**
   * `appUrl` is normalized (https, or http on localhost); `owner` is a wallet address. With
   * `onlyUnused` (the dashboard: a developer, not the operator) an app URL that another project
   * ever registered is refused with APP_URL_NEEDS_OPERATOR.
   */
  createProject(input: {
    name: string;
    appUrl: string;
    whitelisted?: boolean;
    owner?: string;
    onlyUnused?: boolean;
  }): Promise<CreatedProject>;
  setWhitelisted(projectId: string, whitelisted: boolean): Promise<void>;
  /**
   * Changes what the platform app shows for the project's apps: `name` (1-100 characters) and
   * `iconUrl` (https, or http on localhost; null or '' removes it).
   */
  updateProject(projectId: string, changes: { name?: unknown; iconUrl?: unknown }): Promise<ProjectInfo>;
  /** Its keys answer 404 from now on; its app URLs are freed and their pins deleted. */
  deleteProject(projectId: string): Promise<void>;
  /** `onlyUnused`: as for createProject (the dashboard's developers). */
  addAppUrl(
    projectId: string,
    appUrl: string,
    options?: { onlyUnused?: boolean },
  ): Promise<{ appUrls: string[] }>;
  /** Frees the app URL; its pins are deleted (a later owner never inherits its users). */
  removeAppUrl(projectId: string, appUrl: string): Promise<{ appUrls: string[] }>;
  /** Revokes every key of the project (they answer 401) and returns a new one, shown once. */
  rotateKey(projectId: string): Promise<RotatedKey>;
  /** Revokes every key of the project (they answer 401) without issuing a new one; idempotent. */
  revokeKey(projectId: string): Promise<RevokedKeys>;
  getProject(projectId: string): Promise<ProjectInfo>;
  listProjects(filter?: { owner?: string }): Promise<ProjectInfo[]>;
  close(): Promise<void>;
}

/** Opens the notifications store (migrating it if needed) for the operator's commands. */
export async function openAdmin(options: AdminStoreOptions): Promise<Admin> {
  const database = await openDatabase({ ...options, poolSize: 2 });
  const admin = createAdmin(database.db);
  return { ...admin, close: () => database.close() };
}

/**
 * The admin operations on an open store; `close` does nothing (the owner closes the store).
 * `onWebhookQueued` wakes the server's webhook dispatcher after a resend.
 */
export function createAdmin(db: Db, clock: () => number = Date.now, onWebhookQueued?: () => void): Admin {
  const projects = new ProjectsRepository(db);
  const webhooks = webhookOperations(new WebhooksRepository(db), clock, onWebhookQueued);
  const newId = createUlidGenerator(clock);

  const requireProject = async (projectId: string): Promise<ProjectRow> => {
    const project = typeof projectId === 'string' ? await projects.get(projectId) : undefined;
    if (!project) throw new ServiceError('NOT_FOUND', `project ${projectId} does not exist`);
    return project;
  };
  const appUrlOf = (input: unknown): string => {
    if (typeof input !== 'string' || input.trim() === '') throw invalid('app_url', 'is required');
    const result = normalizeRegisteredAppUrl(input);
    if (!result.ok) throw invalid('app_url', result.reason);
    return result.appUrl;
  };

  /** The webhook operations, each after checking the project exists (404 otherwise). */
  const checked =
    <A extends unknown[], R>(operation: (projectId: string, ...args: A) => Promise<R>) =>
    async (projectId: string, ...args: A): Promise<R> => {
      await requireProject(projectId);
      return operation(projectId, ...args);
    };

  return {
    getWebhook: checked(webhooks.getWebhook),
    setWebhook: checked(webhooks.setWebhook),
    rotateWebhookSecret: checked(webhooks.rotateWebhookSecret),
    removeWebhook: checked(webhooks.removeWebhook),
    listWebhookDeliveries: checked(webhooks.listWebhookDeliveries),
    resendWebhookDelivery: checked(webhooks.resendWebhookDelivery),

    async createProject(input) {
      const name = typeof input.name === 'string' ? input.name.trim() : '';
      if (name === '') throw invalid('name', 'is required');
      if (codePointLength(name) > limits.projectNameMax)
        throw invalid('name', `must be at most ${limits.projectNameMax} characters`);
      const appUrl = appUrlOf(input.appUrl);
      let owner: string | null = null;
      if (input.owner !== undefined && input.owner !== null && input.owner !== '') {
        if (!isAddress(input.owner))
          throw invalid('owner', 'must be a valid address (0x followed by 40 hex digits)');
        owner = toChecksumAddress(input.owner);
      }
      const apiKey = generateApiKey();
      const projectId = newId();
      const whitelisted = input.whitelisted === true;
      const created = await projects.create({
        id: projectId,
        name,
        owner,
        whitelisted,
        appUrl,
        keyHash: hashSecret(apiKey),
        now: clock(),
        onlyUnused: input.onlyUnused === true,
      });
      if (created === 'taken')
        throw new ServiceError('CONFLICT', `app URL ${appUrl} is already registered to another project`);
      if (created === 'used-before') throw usedBefore(appUrl);
      return { projectId, apiKey, appUrls: [appUrl], whitelisted };
    },

    async updateProject(projectId, changes) {
      await requireProject(projectId);
      const update: { name?: string; iconUrl?: string | null } = {};
      if (changes.name !== undefined) {
        const name = typeof changes.name === 'string' ? changes.name.trim() : '';
        if (name === '') throw invalid('name', 'must be a non-empty string');
        if (codePointLength(name) > limits.projectNameMax)
          throw invalid('name', `must be at most ${limits.projectNameMax} characters`);
        update.name = name;
      }
      if (changes.iconUrl !== undefined) update.iconUrl = parseIconUrl(changes.iconUrl);
      await projects.update(projectId, update);
      return toInfo(await requireProject(projectId), await projects.withLiveKey([projectId]));
    },

    async setWhitelisted(projectId, whitelisted) {
      if (!(await projects.setWhitelisted(projectId, whitelisted))) {
        throw new ServiceError('NOT_FOUND', `project ${projectId} does not exist`);
      }
    },

    async deleteProject(projectId) {
      if (!(await projects.delete(projectId, clock()))) {
        throw new ServiceError('NOT_FOUND', `project ${projectId} does not exist`);
      }
    },

    async addAppUrl(projectId, input, options = {}) {
      await requireProject(projectId);
      const appUrl = appUrlOf(input);
      const outcome = await projects.addAppUrl(projectId, appUrl, clock(), options);
      if (outcome === 'taken') {
        throw new ServiceError('CONFLICT', `app URL ${appUrl} is already registered to another project`);
      }
      if (outcome === 'used-before') throw usedBefore(appUrl);
      return { appUrls: await projects.appUrls(projectId) };
    },

    async removeAppUrl(projectId, input) {
      await requireProject(projectId);
      const appUrl = appUrlOf(input);
      if (!(await projects.removeAppUrl(projectId, appUrl))) {
        throw new ServiceError('NOT_FOUND', `app URL ${appUrl} is not registered to project ${projectId}`);
      }
      return { appUrls: await projects.appUrls(projectId) };
    },

    async rotateKey(projectId) {
      await requireProject(projectId);
      const apiKey = generateApiKey();
      await projects.rotateKey(projectId, hashSecret(apiKey), clock());
      return { projectId, apiKey };
    },

    async revokeKey(projectId) {
      await requireProject(projectId);
      return { projectId, revoked: await projects.revokeKeys(projectId, clock()) };
    },

    async getProject(projectId) {
      const row = await requireProject(projectId);
      return toInfo(row, await projects.withLiveKey([row.id]));
    },

    async listProjects(filter = {}) {
      if (filter.owner !== undefined && !isAddress(filter.owner))
        throw invalid('owner', 'must be a valid address (0x followed by 40 hex digits)');
      const rows = await projects.list(
        filter.owner === undefined ? {} : { owner: toChecksumAddress(filter.owner) },
      );
      const keyed = await projects.withLiveKey(rows.map((r) => r.id));
      return rows.map((row) => toInfo(row, keyed));
    },

    async close() {},
  };
}

function usedBefore(appUrl: string): ServiceError {
  return new ServiceError(
    'APP_URL_NEEDS_OPERATOR',
    `app URL ${appUrl} was registered to another project before; only the operator can register it again (wharf app add, or the admin API)`,
  );
}

function toInfo(row: ProjectRow, withLiveKey: ReadonlySet<string>): ProjectInfo {
  return {
    projectId: row.id,
    name: row.name,
    owner: row.owner,
    whitelisted: row.whitelisted,
    appUrls: row.appUrls,
    createdAt: new Date(row.createdAt).toISOString(),
    hasKey: withLiveKey.has(row.id),
    iconUrl: row.iconUrl,
  };
}

/** An icon URL: https, or http on localhost / 127.0.0.1; at most 2,000 characters. null or '' clears it. */
function parseIconUrl(input: unknown): string | null {
  if (input === null || input === '') return null;
  if (typeof input !== 'string') throw invalid('icon_url', 'must be a string or null');
  if (input.length > 2000) throw invalid('icon_url', 'must be at most 2,000 characters');
  const result = normalizeRegisteredAppUrl(input);
  if (!result.ok) throw invalid('icon_url', result.reason);
  return new URL(input.trim()).toString();
}
