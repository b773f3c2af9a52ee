/** The preferences store on the notifications database (table `pins`). */
import { type Db, type DbKind, inList } from '../db/database.js';
import type { PinState } from '../webhooks/events.js';
import type { TransitionSink } from '../webhooks/transitions.js';
import type { PinnedApp, PinnedUser, PreferenceStatus, PreferencesStore, WalkPosition } from './store.js';

export class SqlPreferencesStore implements PreferencesStore {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    /** Told of every real transition, inside its transaction (the webhook queue). */
    private readonly transitions?: TransitionSink,
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

  /**
   * Pins. A pin change reads the wallet's row under a lock (the row is created unpinned first if
   * missing, so two first pins serialize on it too), computes the new state, writes it and — in
   * the same transaction — reports a real transition to the sink (the webhook queue).
   */
  async pin(
    appUrl: string,
    address: string,
    options: { notificationsEnabled?: boolean; now: number },
  ): Promise<void> {
    const now = options.now;
    await this.change(appUrl, address, now, { create: true }, (before) => ({
      pinned: true,
      // Re-pinning an unpinned app opts in again (unless told otherwise); pinning a pinned app
      // changes nothing unless the caller said what it wants.
      notificationsEnabled:
        options.notificationsEnabled ?? (before.pinned ? before.notificationsEnabled : true),
    }));
  }

  async unpin(appUrl: string, address: string, now: number): Promise<void> {
    await this.change(appUrl, address, now, { create: false }, () => ({
      pinned: false,
      notificationsEnabled: false,
    }));
  }

  async setNotifications(
    appUrl: string,
    address: string,
    enabled: boolean,
    now: number,
  ): Promise<'ok' | 'not-pinned'> {
    const outcome = await this.change(appUrl, address, now, { create: false }, (before) =>
      before.pinned ? { pinned: true, notificationsEnabled: enabled } : undefined,
    );
    return outcome?.after.pinned ? 'ok' : 'not-pinned';
  }

  /**
   * One pin change in one transaction: lock (or create, unpinned) the row, let `next` decide the
   * new state (undefined: no change), write it if it differs, and report the transition.
   */
  private async change(
    appUrl: string,
    address: string,
    now: number,
    options: { create: boolean },
    next: (before: PinState) => PinState | undefined,
  ): Promise<{ before: PinState; after: PinState } | undefined> {
    const sink = this.transitions;
    let changed = false;
    const outcome = await this.db.transaction().execute(async (tx) => {
      if (options.create) {
        await tx
          .insertInto('pins')
          .values({
            app_url: appUrl,
            address,
            pinned: 0,
            notifications_enabled: 0,
            sort_at: now,
            pinned_at: now,
            updated_at: now,
          })
          .onConflict((oc) => oc.columns(['app_url', 'address']).doNothing())
          .execute();
      }
      let read = tx
        .selectFrom('pins')
        .select(['pinned', 'notifications_enabled'])
        .where('app_url', '=', appUrl)
        .where('address', '=', address);
      if (this.kind === 'postgres') read = read.forUpdate();
      const row = await read.executeTakeFirst();
      if (!row) return undefined;
      const before: PinState = {
        pinned: row.pinned === 1,
        notificationsEnabled: row.pinned === 1 && row.notifications_enabled === 1,
      };
      const wanted = next(before);
      if (!wanted) return { before, after: before };
      const after: PinState = {
        pinned: wanted.pinned,
        notificationsEnabled: wanted.pinned && wanted.notificationsEnabled,
      };
      if (after.pinned === before.pinned && after.notificationsEnabled === before.notificationsEnabled)
        return { before, after };
      await tx
        .updateTable('pins')
        .set({
          pinned: after.pinned ? 1 : 0,
          notifications_enabled: after.notificationsEnabled ? 1 : 0,
          updated_at: now,
          ...(after.pinned && !before.pinned ? { pinned_at: now } : {}),
        })
        .where('app_url', '=', appUrl)
        .where('address', '=', address)
        .execute();
      await sink?.record(tx, { appUrl, address, before, after, at: now });
      changed = true;
      return { before, after };
    });
    if (changed) sink?.committed();
    return outcome;
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
