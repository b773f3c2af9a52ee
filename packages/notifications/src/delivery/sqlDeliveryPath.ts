/**
 * The delivery path on the notifications database, followed by the live fan-out.
 *
 * One transaction claims each dedupe key (a new key, or one whose window closed) and inserts the
 * notifications whose key it claimed; a key that a concurrent identical send claimed first is not
 * stored twice. A send's notifications share everything but id, address and key, so the hot path
 * is one statement on PostgreSQL (unnest arrays) and a batch of prepared statements in one
 * transaction on SQLite; anything else goes through the generic Kysely path.
 */
import type Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { type Database, inList } from '../db/database.js';
import type { LiveFanout } from './fanout.js';
import {
  type DeliveryOutcome,
  type DeliveryPath,
  DeliveryUnavailableError,
  type Notification,
} from './path.js';

export class SqlDeliveryPath implements DeliveryPath {
  constructor(
    private readonly database: Database,
    private readonly fanout: LiveFanout,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {}

  async openWindows(keys: readonly string[], now: number): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    try {
      const rows = await this.database.db
        .selectFrom('dedupe_keys')
        .select('key')
        .where(inList(this.database.kind, 'key', keys))
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
    let claimed: Set<string>;
    try {
      const uniform = sharesContent(notifications);
      if (uniform && this.database.sqlite) {
        // Hold Kysely's (single) SQLite connection, so no Kysely transaction is open around ours.
        claimed = await this.database.db
          .connection()
          .execute(async () => this.storeSqlite(notifications, expiresAt, options.now));
      } else if (uniform && this.database.kind === 'postgres')
        claimed = await this.storePostgres(notifications, expiresAt, options.now);
      else claimed = await this.storeGeneric(notifications, expiresAt, options.now);
    } catch (error) {
      throw new DeliveryUnavailableError('the notification store is unavailable', 5, { cause: error });
    }
    const delivered = notifications.filter((n) => claimed.has(n.dedupeKey));
    // Stored is delivered: the inbox has it and a reconnecting client catches up from there, so a
    // fan-out hiccup is logged, not failed.
    try {
      await this.fanout.publish(delivered);
    } catch (error) {
      this.log?.warn({ err: error }, 'live fan-out failed; notifications are in the inbox');
    }
    return {
      delivered,
      alreadyDelivered: notifications.filter((n) => !claimed.has(n.dedupeKey)).map((n) => n.dedupeKey),
    };
  }

  private sqliteStatements?: { claim: Sqlite.Statement; insert: Sqlite.Statement };

  private storeSqlite(notifications: readonly Notification[], expiresAt: number, now: number): Set<string> {
    const handle = this.database.sqlite!;
    // Two statements for the whole batch, each with the batch as one JSON parameter: constant SQL
    // (prepared once), no per-row statement overhead.
    this.sqliteStatements ??= {
      claim: handle.prepare(
        `insert into dedupe_keys (key, expires_at) select value, ? from json_each(?) where true
         on conflict (key) do update set expires_at = excluded.expires_at where dedupe_keys.expires_at <= ?
         returning key`,
      ),
      insert: handle.prepare(
        `insert into notifications
           (id, project_id, app_url, wallet_address, title, message, target_path, created_at, read_at, dedupe_key)
         select value ->> 0, ?, ?, value ->> 1, ?, ?, ?, ?, null, value ->> 2 from json_each(?)`,
      ),
    };
    const { claim, insert } = this.sqliteStatements;
    const first = notifications[0]!;
    const run = handle.transaction(() => {
      const rows = claim.all(expiresAt, JSON.stringify(notifications.map((n) => n.dedupeKey)), now) as Array<{
        key: string;
      }>;
      const claimed = new Set(rows.map((r) => r.key));
      const fresh = notifications.filter((n) => claimed.has(n.dedupeKey));
      if (fresh.length > 0) {
        insert.run(
          first.projectId,
          first.appUrl,
          first.title,
          first.message,
          first.targetPath,
          first.createdAt,
          JSON.stringify(fresh.map((n) => [n.id, n.walletAddress, n.dedupeKey])),
        );
      }
      return claimed;
    });
    // better-sqlite3 is synchronous: nothing else in this process runs between BEGIN and COMMIT.
    return run.immediate();
  }

  private async storePostgres(
    notifications: readonly Notification[],
    expiresAt: number,
    now: number,
  ): Promise<Set<string>> {
    const first = notifications[0]!;
    const result = await sql<{ dedupe_key: string }>`
      with claimed as (
        insert into dedupe_keys (key, expires_at)
        select k, ${expiresAt}::bigint from unnest(${notifications.map((n) => n.dedupeKey)}::text[]) as k
        on conflict (key) do update set expires_at = excluded.expires_at where dedupe_keys.expires_at <= ${now}::bigint
        returning key
      )
      insert into notifications
        (id, project_id, app_url, wallet_address, title, message, target_path, created_at, read_at, dedupe_key)
      select n.id, ${first.projectId}, ${first.appUrl}, n.address, ${first.title}, ${first.message},
             ${first.targetPath}::text, ${first.createdAt}::bigint, null, n.key
      from unnest(${notifications.map((n) => n.id)}::text[], ${notifications.map((n) => n.walletAddress)}::text[],
                  ${notifications.map((n) => n.dedupeKey)}::text[]) as n(id, address, key)
      join claimed c on c.key = n.key
      returning dedupe_key`.execute(this.database.db);
    return new Set(result.rows.map((r) => r.dedupe_key));
  }

  private async storeGeneric(
    notifications: readonly Notification[],
    expiresAt: number,
    now: number,
  ): Promise<Set<string>> {
    return this.database.db.transaction().execute(async (tx) => {
      const claimedRows = await tx
        .insertInto('dedupe_keys')
        .values(notifications.map((n) => ({ key: n.dedupeKey, expires_at: expiresAt })))
        .onConflict((oc) =>
          oc
            .column('key')
            .doUpdateSet({ expires_at: (eb) => eb.ref('excluded.expires_at') })
            .where('dedupe_keys.expires_at', '<=', now),
        )
        .returning('key')
        .execute();
      const claimed = new Set(claimedRows.map((r) => r.key));
      const fresh = notifications.filter((n) => claimed.has(n.dedupeKey));
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
      return claimed;
    });
  }

  /** Deletes dedupe keys whose window closed. Run now and then by the server. */
  async sweep(now: number): Promise<void> {
    await this.database.db.deleteFrom('dedupe_keys').where('expires_at', '<=', now).execute();
  }
}

/** Whether the notifications differ only in id, address and dedupe key (one send's batch). */
function sharesContent(notifications: readonly Notification[]): boolean {
  const f = notifications[0]!;
  return notifications.every(
    (n) =>
      n.projectId === f.projectId &&
      n.appUrl === f.appUrl &&
      n.title === f.title &&
      n.message === f.message &&
      n.targetPath === f.targetPath &&
      n.createdAt === f.createdAt,
  );
}
