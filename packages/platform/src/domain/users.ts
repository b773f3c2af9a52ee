/**
 * The users list: keyset pagination over (first pin time, address). A user's position never
 * changes (unpinning keeps the row, re-pinning keeps the first pin time), and the cursor only moves
 * forward, so a walk visits every user pinned throughout it exactly once and never repeats anyone,
 * however many pin and unpin meanwhile.
 */
import type { AuthenticatedProject } from '../auth/authenticate.js';
import { authorizeApp } from './authorizeApp.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import type { DeveloperDeps } from './deps.js';
import type { UsersQuery } from './rules.js';

export interface UsersPage {
  success: true;
  users: Array<{ address: string; notificationsEnabled: boolean }>;
  nextCursor?: string;
}

export async function listUsers(
  deps: DeveloperDeps,
  project: AuthenticatedProject,
  query: UsersQuery,
): Promise<UsersPage> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, query);
  await authorizeApp(deps, project, query.appUrl);
  const rows = await deps.preferences.listPinned(query.appUrl, {
    enabledOnly: query.enabledOnly,
    after,
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const users = page.map((u) => ({ address: u.address, notificationsEnabled: u.notificationsEnabled }));
  const last = page[page.length - 1];
  if (rows.length > query.limit && last) {
    return {
      success: true,
      users,
      nextCursor: encodeCursor(query, { sortAt: last.sortAt, address: last.address }),
    };
  }
  return { success: true, users };
}
