/**
 * The developer API's key check: a missing or unknown key is 401, a key whose project was deleted
 * is 404. Read from the store on every request, so a deletion or rotation applies at once.
 */
import type { ProjectsRepository } from '../db/repositories/projects.js';
import { ServiceError } from '../errors.js';
import { constantTimeEqual, hashSecret } from './apiKeys.js';

export interface AuthenticatedProject {
  projectId: string;
  whitelisted: boolean;
}

export async function authenticateApiKey(
  projects: ProjectsRepository,
  header: string | string[] | undefined,
): Promise<AuthenticatedProject> {
  if (typeof header !== 'string' || header.trim() === '') {
    throw new ServiceError('API_KEY_INVALID', 'x-api-key header is required');
  }
  const hash = hashSecret(header.trim());
  const key = await projects.findKey(hash);
  if (!key || !constantTimeEqual(key.keyHash, hash)) {
    throw new ServiceError('API_KEY_INVALID', 'x-api-key is not a valid API key');
  }
  if (!key.projectExists) {
    throw new ServiceError('PROJECT_NOT_FOUND', 'the project of this API key does not exist');
  }
  return { projectId: key.projectId, whitelisted: key.whitelisted };
}
