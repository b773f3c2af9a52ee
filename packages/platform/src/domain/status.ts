import type { AuthenticatedProject } from '../auth/authenticate.js';
import { ServiceError } from '../errors.js';
import { authorizeApp } from './authorizeApp.js';
import type { DeveloperDeps } from './deps.js';
import type { StatusRequest } from './rules.js';

export interface UserStatus {
  appPinned: boolean;
  /** Always false when appPinned is false. */
  notificationsEnabled: boolean;
}

export async function userStatus(
  deps: DeveloperDeps,
  project: AuthenticatedProject,
  request: StatusRequest,
): Promise<UserStatus> {
  await authorizeApp(deps, project, request.appUrl);
  let status: Awaited<ReturnType<DeveloperDeps['preferences']['statusOf']>>;
  try {
    status = await deps.preferences.statusOf(request.appUrl, [request.walletAddress]);
  } catch (error) {
    throw new ServiceError(
      'PREFERENCES_FAILED',
      'retrieving the user status from the preferences service failed',
      {
        cause: error,
      },
    );
  }
  const entry = status.get(request.walletAddress);
  const appPinned = entry?.pinned === true;
  return { appPinned, notificationsEnabled: appPinned && entry?.notificationsEnabled === true };
}
