/**
 * The developer dashboard's services: the operator's Admin operations (admin.ts, also behind the
 * `wharf project|app|key` commands and /api/v1/admin) scoped to one owner, and the developer API's
 * services (users, status, send) run for an owned project without its raw key.
 *
 * Authorization rule: a developer acts only on projects whose `owner` is their signed-in address
 * (EIP-55). Any other project — another developer's, an operator's project without an owner, a
 * deleted one, one that never existed — answers the same 404 `project <id> does not exist`, so a
 * project's existence never leaks. Whitelisting stays with the operator.
 *
 *   dashboard route ─> requireOwnProject (404) ─> Admin operation          (same as the CLI)
 *                                              ─> listUsers / userStatus / sendNotification
 *                                                 as if called with the project's key
 */
import type { Admin, CreatedProject, ProjectInfo, RevokedKeys, RotatedKey } from './admin.js';
import type { SendLogRepository } from '../db/repositories/sendLog.js';
import { invalid, ServiceError } from '../errors.js';
import { isAddress, toChecksumAddress } from './addresses.js';
import type { DeveloperDeps } from './deps.js';
import {
  parseSendRequest,
  parseStatusRequest,
  parseUsersQuery,
  type SendBody,
  type StatusBody,
  type UsersQuerystring,
} from './rules.js';
import { type SendResponse, sendNotification } from './send.js';
import { type UserStatus, userStatus } from './status.js';
import { listUsers, type UsersPage } from './users.js';

export interface DashboardDeps {
  admin: Admin;
  developer: DeveloperDeps;
  sendLog: SendLogRepository;
}

/** The one answer for a project the developer does not own (identical to a missing one). */
function notFound(projectId: string): ServiceError {
  return new ServiceError('NOT_FOUND', `project ${projectId} does not exist`);
}

/** The project, if `owner` owns it; 404 otherwise (whatever the reason). */
export async function requireOwnProject(
  deps: Pick<DashboardDeps, 'admin'>,
  owner: string,
  projectId: string,
): Promise<ProjectInfo> {
  let project: ProjectInfo;
  try {
    project = await deps.admin.getProject(projectId);
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'NOT_FOUND') throw notFound(projectId);
    throw error;
  }
  if (project.owner === null || project.owner !== toChecksumAddress(owner)) throw notFound(projectId);
  return project;
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[name]
    : undefined;
}

export function listOwnProjects(deps: DashboardDeps, owner: string): Promise<ProjectInfo[]> {
  return deps.admin.listProjects({ owner });
}

/**
 * Creates a project owned by `owner`, with its first app URL and API key (shown once). Not
 * whitelisted: the operator decides. `owner` in the body may only repeat the signed-in address.
 */
export async function createOwnProject(
  deps: DashboardDeps,
  owner: string,
  body: unknown,
): Promise<CreatedProject> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body', 'must be a JSON object');
  const claimed = field(body, 'owner');
  if (claimed !== undefined && claimed !== null && claimed !== '') {
    if (!isAddress(claimed) || toChecksumAddress(claimed) !== toChecksumAddress(owner))
      throw invalid('owner', 'must be the signed-in address, or omitted');
  }
  const whitelisted = field(body, 'whitelisted');
  if (whitelisted !== undefined && whitelisted !== false)
    throw invalid('whitelisted', 'is decided by the operator (omit it)');
  return deps.admin.createProject({
    name: field(body, 'name') as string,
    appUrl: field(body, 'app_url') as string,
    owner,
    whitelisted: false,
    // A developer never takes over a URL another project used (and so its users): the operator may.
    onlyUnused: true,
  });
}

export async function getOwnProject(deps: DashboardDeps, owner: string, projectId: string) {
  return requireOwnProject(deps, owner, projectId);
}

export async function deleteOwnProject(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
): Promise<{ success: true }> {
  await requireOwnProject(deps, owner, projectId);
  await deps.admin.deleteProject(projectId);
  return { success: true };
}

export async function addOwnAppUrl(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
  body: unknown,
): Promise<{ appUrls: string[] }> {
  await requireOwnProject(deps, owner, projectId);
  return deps.admin.addAppUrl(projectId, field(body, 'app_url') as string, { onlyUnused: true });
}

export async function removeOwnAppUrl(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
  query: unknown,
): Promise<{ appUrls: string[] }> {
  await requireOwnProject(deps, owner, projectId);
  return deps.admin.removeAppUrl(projectId, field(query, 'app_url') as string);
}

export async function rotateOwnKey(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
): Promise<RotatedKey> {
  await requireOwnProject(deps, owner, projectId);
  return deps.admin.rotateKey(projectId);
}

export async function revokeOwnKey(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
): Promise<RevokedKeys> {
  await requireOwnProject(deps, owner, projectId);
  return deps.admin.revokeKey(projectId);
}

/** The project as the developer API sees a key of it (ownership of app URLs, whitelist). */
async function asKeyHolder(deps: DashboardDeps, owner: string, projectId: string) {
  const project = await requireOwnProject(deps, owner, projectId);
  return { projectId: project.projectId, whitelisted: project.whitelisted };
}

/** The pages of GET /api/v1/notifications/app/users, for an owned project. */
export async function ownProjectUsers(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
  query: UsersQuerystring,
): Promise<UsersPage> {
  const project = await asKeyHolder(deps, owner, projectId);
  return listUsers(deps.developer, project, parseUsersQuery(query));
}

/** POST /api/v1/notifications/app/user/status, for an owned project. */
export async function ownProjectUserStatus(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
  body: StatusBody,
): Promise<UserStatus> {
  const project = await asKeyHolder(deps, owner, projectId);
  return userStatus(deps.developer, project, parseStatusRequest(body));
}

/** POST /api/v1/notifications/send, for an owned project: the same rules, results and deliveries. */
export async function ownProjectSend(
  deps: DashboardDeps,
  owner: string,
  projectId: string,
  body: SendBody,
): Promise<SendResponse> {
  const project = await asKeyHolder(deps, owner, projectId);
  return sendNotification(deps.developer, project, parseSendRequest(body), 'dashboard');
}
