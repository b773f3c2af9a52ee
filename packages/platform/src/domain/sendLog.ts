/**
 * The send log: a project's sends, newest first, a page at a time. On the dashboard API only the
 * project's owner reads it (another developer's project answers 404 like every dashboard route);
 * the operator reads any project's on the admin API.
 */
import type { SendLogRepository } from '../db/repositories/sendLog.js';
import type { SendRecord } from '../delivery/path.js';
import { invalid } from '../errors.js';
import { type DashboardDeps, requireOwnProject } from './dashboard.js';

export const sendLogPage = { defaultLimit: 20, maxLimit: 100 } as const;

export interface SendLogPage {
  sends: Array<Omit<SendRecord, 'projectId' | 'createdAt'> & { createdAt: string }>;
  /** Pass as `before` for the next (older) page; absent on the last page. */
  nextCursor?: string;
}

/** An owned project's sends (dashboard API). */
export async function ownProjectSends(
  deps: Pick<DashboardDeps, 'admin'> & { sendLog: SendLogRepository },
  owner: string,
  projectId: string,
  query: unknown,
): Promise<SendLogPage> {
  await requireOwnProject(deps, owner, projectId);
  return projectSends(deps.sendLog, projectId, query);
}

/** A page of a project's sends; `query` holds `limit` and `before` (the previous nextCursor). */
export async function projectSends(
  sendLog: SendLogRepository,
  projectId: string,
  query: unknown,
): Promise<SendLogPage> {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const limit = q.limit === undefined ? sendLogPage.defaultLimit : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > sendLogPage.maxLimit)
    throw invalid('limit', `must be an integer from 1 to ${sendLogPage.maxLimit}`);
  const before = q.before;
  if (before !== undefined && (typeof before !== 'string' || !/^[0-9A-HJKMNP-TV-Z]{26}$/.test(before)))
    throw invalid('before', 'must be the nextCursor of a previous page');
  // One more than asked: whether there is a next page, without a count.
  const rows = await sendLog.page(projectId, limit + 1, before as string | undefined);
  const page = rows.slice(0, limit);
  return {
    sends: page.map(({ projectId: _, createdAt, ...send }) => ({
      ...send,
      createdAt: new Date(createdAt).toISOString(),
    })),
    ...(rows.length > limit ? { nextCursor: page[page.length - 1]!.id } : {}),
  };
}
