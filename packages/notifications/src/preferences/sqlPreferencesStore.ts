/** The preferences store on the notifications database (table `pins`). */
import { sql } from 'kysely';
import { type Db, type DbKind, inList } from '../db/database.js';
import type { PinnedApp, PinnedUser, PreferenceStatus, PreferencesStore, WalkPosition } from './store.js';

export class SqlPreferencesStore implements PreferencesStore {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
  ) {}

  async statusOf(appUrl: string, addresses: readonly string[]): Promise<Map<string, PreferenceStatus>> {
    const result = new Map<string, PreferenceStatus>();
    if (addresses.length === 0) return result;
    const rows = await this.db
      .selectFrom('pins')
      .select(['address', 'notifications_enabled'])
      .where('app_url', '=', appUrl)
      .where('pinned', '=', 1)
      .where(inList(this.kind, 'address', addresses))
      .execute();
    for (const row of rows) {
      result.set(row.address, { pinned: true, notificationsEnabled: row.notifications_enabled === 1 });
    }
    return result;
  }

  async listPinned(
    appUrl: string,
    query: { enabledOnly: boolean; after?: WalkPosition; limit: number },
  ): Promise<PinnedUser[]> {
    let q = this.db
      .selectFrom('pins')
      .select(['address', 'notifications_enabled', 'sort_at'])
      .where('app_url', '=', appUrl)
      .where('pinned', '=', 1);
    if (query.enabledOnly) q = q.where('notifications_enabled', '=', 1);
    const after = query.after;
    if (after) {
      q = q.where((eb) => eb(eb.refTuple('sort_at', 'address'), '>', eb.tuple(after.sortAt, after.address)));
    }
    const rows = await q.orderBy('sort_at').orderBy('address').limit(query.limit).execute();
    return rows.map((r) => ({
      address: r.address,
      notificationsEnabled: r.notifications_enabled === 1,
      sortAt: r.sort_at,
    }));
  }

  async pin(
    appUrl: string,
    address: string,
    options: { notificationsEnabled?: boolean; now: number },
  ): Promise<void> {
    const enabled = options.notificationsEnabled === false ? 0 : 1;
    const explicit = options.notificationsEnabled !== undefined;
    await this.db
      .insertInto('pins')
      .values({
        app_url: appUrl,
        address,
        pinned: 1,
        notifications_enabled: enabled,
        sort_at: options.now,
        pinned_at: options.now,
        updated_at: options.now,
      })
      .onConflict((oc) =>
        oc.columns(['app_url', 'address']).doUpdateSet({
          // Re-pinning an unpinned app opts in again (unless told otherwise); pinning a pinned app
          // changes nothing unless the caller said what it wants.
          notifications_enabled: explicit
            ? enabled
            : sql<number>`case when pins.pinned = 1 then pins.notifications_enabled else ${enabled} end`,
          pinned_at: sql<number>`case when pins.pinned = 1 then pins.pinned_at else ${options.now} end`,
          pinned: 1,
          updated_at: options.now,
        }),
      )
      .execute();
  }

  async unpin(appUrl: string, address: string, now: number): Promise<void> {
    await this.db
      .updateTable('pins')
      .set({ pinned: 0, notifications_enabled: 0, updated_at: now })
      .where('app_url', '=', appUrl)
      .where('address', '=', address)
      .where('pinned', '=', 1)
      .execute();
  }

  async setNotifications(
    appUrl: string,
    address: string,
    enabled: boolean,
    now: number,
  ): Promise<'ok' | 'not-pinned'> {
    const result = await this.db
      .updateTable('pins')
      .set({ notifications_enabled: enabled ? 1 : 0, updated_at: now })
      .where('app_url', '=', appUrl)
      .where('address', '=', address)
      .where('pinned', '=', 1)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0 ? 'ok' : 'not-pinned';
  }

  async pinnedApps(address: string): Promise<PinnedApp[]> {
    const rows = await this.db
      .selectFrom('pins')
      .select(['app_url', 'notifications_enabled', 'pinned_at'])
      .where('address', '=', address)
      .where('pinned', '=', 1)
      .orderBy('pinned_at', 'desc')
      .orderBy('app_url')
      .execute();
    return rows.map((r) => ({
      appUrl: r.app_url,
      notificationsEnabled: r.notifications_enabled === 1,
      pinnedAt: r.pinned_at,
    }));
  }
}
