/** The delivery path on the notifications database, followed by the live fan-out. */
import type { Logger } from 'pino';
import type { Db } from '../db/database.js';
import type { LiveFanout } from './fanout.js';
import {
  type DeliveryOutcome,
  type DeliveryPath,
  DeliveryUnavailableError,
  type Notification,
} from './path.js';

export class SqlDeliveryPath implements DeliveryPath {
  constructor(
    private readonly db: Db,
    private readonly fanout: LiveFanout,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {}

  async openWindows(keys: readonly string[], now: number): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    try {
      const rows = await this.db
        .selectFrom('dedupe_keys')
        .select('key')
        .where('key', 'in', keys as string[])
        .where('expires_at', '>', now)
        .execute();
      return new Set(rows.map((r) => r.key));
    } catch (error) {
      throw new DeliveryUnavailableError('the notification store is unavailable', 5, { cause: error });
    }
  }

  async deliver(
    notifications: readonly Notification[],
    options: { now: number; windowMs: number },
  ): Promise<DeliveryOutcome> {
    if (notifications.length === 0) return { delivered: [], alreadyDelivered: [] };
    const expiresAt = options.now + options.windowMs;
    let delivered: Notification[];
    try {
      delivered = await this.db.transaction().execute(async (tx) => {
        // Claim each key: a new key, or one whose window has closed. A key that a concurrent
        // identical send claimed first is not returned, so that notification is not stored twice.
        const claimed = await tx
          .insertInto('dedupe_keys')
          .values(notifications.map((n) => ({ key: n.dedupeKey, expires_at: expiresAt })))
          .onConflict((oc) =>
            oc
              .column('key')
              .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') })
              .where('dedupe_keys.expires_at', '<=', options.now),
          )
          .returning('key')
          .execute();
        const claimedKeys = new Set(claimed.map((r) => r.key));
        const fresh = notifications.filter((n) => claimedKeys.has(n.dedupeKey));
        if (fresh.length > 0) {
          await tx
            .insertInto('notifications')
            .values(
              fresh.map((n) => ({
                id: n.id,
                project_id: n.projectId,
                app_url: n.appUrl,
                wallet_address: n.walletAddress,
                title: n.title,
                message: n.message,
                target_path: n.targetPath,
                created_at: n.createdAt,
                read_at: null,
                dedupe_key: n.dedupeKey,
              })),
            )
            .execute();
        }
        return fresh;
      });
    } catch (error) {
      throw new DeliveryUnavailableError('the notification store is unavailable', 5, { cause: error });
    }
    // Stored is delivered: the inbox has it and a reconnecting client catches up from there, so a
    // fan-out hiccup is logged, not failed.
    try {
      await this.fanout.publish(delivered);
    } catch (error) {
      this.log?.warn({ err: error }, 'live fan-out failed; notifications are in the inbox');
    }
    const deliveredKeys = new Set(delivered.map((n) => n.dedupeKey));
    return {
      delivered,
      alreadyDelivered: notifications.filter((n) => !deliveredKeys.has(n.dedupeKey)).map((n) => n.dedupeKey),
    };
  }

  /** Deletes dedupe keys whose window closed. Run now and then by the server. */
  async sweep(now: number): Promise<void> {
    await this.db.deleteFrom('dedupe_keys').where('expires_at', '<=', now).execute();
  }
}
