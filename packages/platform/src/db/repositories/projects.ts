/** SQL of projects, their API keys and their app URLs. Only queries; the rules live in the callers. */
import type { Db } from '../database.js';

export interface ProjectRow {
  id: string;
  name: string;
  iconUrl: string | null;
  owner: string | null;
  whitelisted: boolean;
  createdAt: number;
  appUrls: string[];
}

export interface KeyLookup {
  keyHash: string;
  projectId: string;
  /** false when the project was deleted (the key then answers 404). */
  projectExists: boolean;
  whitelisted: boolean;
}

export class ProjectsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Creates a project with its first app URL and key. 'taken' if another project holds the URL;
   * 'used-before' if another project ever held it and `onlyUnused` is set.
   */
  async create(input: {
    id: string;
    name: string;
    owner: string | null;
    whitelisted: boolean;
    appUrl: string;
    keyHash: string;
    now: number;
    onlyUnused?: boolean;
  }): Promise<'created' | 'taken' | 'used-before'> {
    return this.db.transaction().execute(async (tx) => {
      const taken = await tx
        .selectFrom('app_urls')
        .select('project_id')
        .where('app_url', '=', input.appUrl)
        .executeTakeFirst();
      if (taken) return 'taken';
      if (input.onlyUnused && (await usedByAnother(tx, input.appUrl, input.id))) return 'used-before';
      await tx
        .insertInto('projects')
        .values({
          id: input.id,
          name: input.name,
          owner: input.owner,
          whitelisted: input.whitelisted ? 1 : 0,
          created_at: input.now,
          deleted_at: null,
          icon_url: null,
        })
        .execute();
      await tx
        .insertInto('app_urls')
        .values({ app_url: input.appUrl, project_id: input.id, created_at: input.now })
        .execute();
      await remember(tx, input.appUrl, input.id, input.now);
      await tx
        .insertInto('api_keys')
        .values({ key_hash: input.keyHash, project_id: input.id, created_at: input.now, revoked_at: null })
        .execute();
      return 'created';
    });
  }

  /** The live key with this hash, and whether its project still exists. */
  async findKey(keyHash: string): Promise<KeyLookup | undefined> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .leftJoin('projects as p', 'p.id', 'k.project_id')
      .select(['k.key_hash', 'k.project_id', 'p.id as pid', 'p.deleted_at', 'p.whitelisted'])
      .where('k.key_hash', '=', keyHash)
      .where('k.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      keyHash: row.key_hash,
      projectId: row.project_id,
      projectExists: row.pid !== null && row.deleted_at === null,
      whitelisted: row.whitelisted === 1,
    };
  }

  /** Whether `appUrl` is registered to `projectId`. */
  async ownsAppUrl(projectId: string, appUrl: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('app_urls')
      .select('project_id')
      .where('app_url', '=', appUrl)
      .executeTakeFirst();
    return row?.project_id === projectId;
  }

  async get(projectId: string): Promise<ProjectRow | undefined> {
    const row = await this.db
      .selectFrom('projects')
      .selectAll()
      .where('id', '=', projectId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!row) return undefined;
    return { ...toProject(row), appUrls: await this.appUrls(projectId) };
  }

  async list(filter: { owner?: string } = {}): Promise<ProjectRow[]> {
    let query = this.db.selectFrom('projects').selectAll().where('deleted_at', 'is', null);
    if (filter.owner !== undefined) query = query.where('owner', '=', filter.owner);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    const urls = rows.length
      ? await this.db
          .selectFrom('app_urls')
          .select(['app_url', 'project_id'])
          .where(
            'project_id',
            'in',
            rows.map((r) => r.id),
          )
          .orderBy('created_at')
          .orderBy('app_url')
          .execute()
      : [];
    return rows.map((row) => ({
      ...toProject(row),
      appUrls: urls.filter((u) => u.project_id === row.id).map((u) => u.app_url),
    }));
  }

  /** Registered app URLs with their project names (the client app's catalog). */
  async catalog(): Promise<Array<{ appUrl: string; name: string; iconUrl: string | null }>> {
    const rows = await this.db
      .selectFrom('app_urls as a')
      .innerJoin('projects as p', 'p.id', 'a.project_id')
      .select(['a.app_url', 'p.name', 'p.icon_url'])
      .where('p.deleted_at', 'is', null)
      .orderBy('p.name')
      .orderBy('a.app_url')
      .execute();
    return rows.map((r) => ({ appUrl: r.app_url, name: r.name, iconUrl: r.icon_url }));
  }

  async appUrls(projectId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('app_urls')
      .select('app_url')
      .where('project_id', '=', projectId)
      .orderBy('created_at')
      .orderBy('app_url')
      .execute();
    return rows.map((r) => r.app_url);
  }

  async appUrlOwner(appUrl: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('app_urls')
      .select('project_id')
      .where('app_url', '=', appUrl)
      .executeTakeFirst();
    return row?.project_id;
  }

  /** Changes the name and/or the icon URL. False when the project does not exist. */
  async update(projectId: string, changes: { name?: string; iconUrl?: string | null }): Promise<boolean> {
    const set: { name?: string; icon_url?: string | null } = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.iconUrl !== undefined) set.icon_url = changes.iconUrl;
    if (Object.keys(set).length === 0) return (await this.get(projectId)) !== undefined;
    const result = await this.db
      .updateTable('projects')
      .set(set)
      .where('id', '=', projectId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setWhitelisted(projectId: string, whitelisted: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('projects')
      .set({ whitelisted: whitelisted ? 1 : 0 })
      .where('id', '=', projectId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Marks the project deleted and frees its app URLs; its keys stay, answering 404. The pins of
   * its URLs go with it: they were its users, never the next owner's.
   */
  async delete(projectId: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .updateTable('projects')
        .set({ deleted_at: now })
        .where('id', '=', projectId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      const urls = await tx
        .selectFrom('app_urls')
        .select('app_url')
        .where('project_id', '=', projectId)
        .execute();
      if (urls.length > 0)
        await tx
          .deleteFrom('pins')
          .where(
            'app_url',
            'in',
            urls.map((u) => u.app_url),
          )
          .execute();
      await tx.deleteFrom('app_urls').where('project_id', '=', projectId).execute();
      return true;
    });
  }

  /**
   * Registers an app URL. 'taken' when another project owns it; 'used-before' when another
   * project ever held it and `onlyUnused` is set; idempotent for the same project.
   */
  async addAppUrl(
    projectId: string,
    appUrl: string,
    now: number,
    options: { onlyUnused?: boolean } = {},
  ): Promise<'added' | 'exists' | 'taken' | 'used-before'> {
    return this.db.transaction().execute(async (tx) => {
      const owner = await tx
        .selectFrom('app_urls')
        .select('project_id')
        .where('app_url', '=', appUrl)
        .executeTakeFirst();
      if (owner) return owner.project_id === projectId ? 'exists' : 'taken';
      if (options.onlyUnused && (await usedByAnother(tx, appUrl, projectId))) return 'used-before';
      await tx
        .insertInto('app_urls')
        .values({ app_url: appUrl, project_id: projectId, created_at: now })
        .execute();
      await remember(tx, appUrl, projectId, now);
      return 'added';
    });
  }

  /** Frees an app URL of the project; its pins go with it (they are not the next owner's). */
  async removeAppUrl(projectId: string, appUrl: string): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const result = await tx
        .deleteFrom('app_urls')
        .where('project_id', '=', projectId)
        .where('app_url', '=', appUrl)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await tx.deleteFrom('pins').where('app_url', '=', appUrl).execute();
      return true;
    });
  }

  /** Revokes every live key of the project (they answer 401 from now on); returns how many. */
  async revokeKeys(projectId: string, now: number): Promise<number> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('project_id', '=', projectId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Which of these projects have a live (unrevoked) key. */
  async withLiveKey(projectIds: readonly string[]): Promise<Set<string>> {
    if (projectIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('api_keys')
      .select('project_id')
      .distinct()
      .where('project_id', 'in', projectIds)
      .where('revoked_at', 'is', null)
      .execute();
    return new Set(rows.map((r) => r.project_id));
  }

  /** Revokes every live key of the project and stores the new key's hash. */
  async rotateKey(projectId: string, keyHash: string, now: number): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .updateTable('api_keys')
        .set({ revoked_at: now })
        .where('project_id', '=', projectId)
        .where('revoked_at', 'is', null)
        .execute();
      await tx
        .insertInto('api_keys')
        .values({ key_hash: keyHash, project_id: projectId, created_at: now, revoked_at: null })
        .execute();
    });
  }
}

/** Whether a project other than `projectId` ever registered `appUrl`. */
async function usedByAnother(db: Db, appUrl: string, projectId: string): Promise<boolean> {
  const row = await db
    .selectFrom('app_url_history')
    .select('project_id')
    .where('app_url', '=', appUrl)
    .where('project_id', '!=', projectId)
    .executeTakeFirst();
  return row !== undefined;
}

async function remember(db: Db, appUrl: string, projectId: string, now: number): Promise<void> {
  await db
    .insertInto('app_url_history')
    .values({ app_url: appUrl, project_id: projectId, registered_at: now })
    .onConflict((oc) => oc.columns(['app_url', 'project_id']).doNothing())
    .execute();
}

function toProject(row: {
  id: string;
  name: string;
  icon_url: string | null;
  owner: string | null;
  whitelisted: number;
  created_at: number;
}): Omit<ProjectRow, 'appUrls'> {
  return {
    id: row.id,
    name: row.name,
    iconUrl: row.icon_url,
    owner: row.owner,
    whitelisted: row.whitelisted === 1,
    createdAt: row.created_at,
  };
}
