import type { AuthenticatedProject } from '../auth/authenticate.js';
import { ServiceError } from '../errors.js';
import type { DeveloperDeps } from './deps.js';

/** 403 unless `appUrl` is registered to the key's project and the project is whitelisted. */
export async function authorizeApp(
  deps: Pick<DeveloperDeps, 'projects'>,
  project: AuthenticatedProject,
  appUrl: string,
): Promise<void> {
  if (!(await deps.projects.ownsAppUrl(project.projectId, appUrl))) {
    throw new ServiceError('APP_URL_NOT_OWNED', 'app_url is not registered to the project of this API key');
  }
  if (!project.whitelisted) {
    throw new ServiceError('PROJECT_NOT_WHITELISTED', 'the project is not whitelisted for notifications');
  }
}
