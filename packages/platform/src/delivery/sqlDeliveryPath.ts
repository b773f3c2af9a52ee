/**
 * The delivery path on the notifications database, followed by the live fan-out.
 *
 * One transaction claims each dedupe key (a new key, or one whose window closed) and inserts the
 * notifications whose key it claimed; a key that a concurrent identical send claimed first is not
 * stored twice. A send's notifications share everything but id, address and key, so the hot path
 * is one statement on PostgreSQL (unnest arrays) and a batch of prepared statements in one
 * transaction on SQLite; anything else goes through the generic Kysely path.
 *
 * The same transaction writes one outbox row naming the stored notifications; after the commit
 * this instance publishes them and deletes the row. If it dies or cannot publish in between, the
 * row's lease runs out and any instance's relay pushes them (delivery/outboxRelay.ts,
 * docs/decisions/0170): a stored notification is always pushed, at least once.
 *
 * The same transaction also writes the send's row in the send log (docs/decisions/0165), so the
 * log never shows a send whose notifications were not stored, nor misses one that was.
 */
import type Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { type Database, inList } from '../db/database.js';
import { sendLogRow } from '../db/repositories/sendLog.js';
import type { LiveFanout } from './fanout.js';
import { defaultOutboxLeaseMs, deleteOutboxRow } from './outboxRelay.js';
import {
  type DeliveryOutcome,
  type DeliveryPath,
  DeliveryUnavailableError,
  type Notification,
  type SendRecord,
} from './path.js';

export class SqlDeliveryPath implements DeliveryPath {
  constructor(
    private readonly database: Database,
    private readonly fanout: LiveFanout,
    private readonly log?: Pick<Logger, 'warn'>,
    /** How long the writer owns a stored send's push before another instance's relay takes it. */
    private readonly outboxLeaseMs = defaultOutboxLeaseMs,
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
    options: { now: number; windowMs: number; record?: SendRecord },
  ): Promise<DeliveryOutcome> {
    if (notifications.length === 0) {
      if (options.record) {
        try {
          await this.database.db.insertInto('send_log').values(sendLogRow(options.record)).execute();
        } catch (error) {
          throw new DeliveryUnavailableError('the notification store is unavailable', 5, { cause: error });
        }
      }
      return { delivered: [], alreadyDelivered: [] };
    }
    const expiresAt = options.now + options.windowMs;
    const outbox: OutboxEntry = {
      id: randomUUID(),
      leaseUntil: options.now + this.outboxLeaseMs,
      record: options.record,
    };
    let claimed: Set<string>;
    try {
      const uniform = sharesContent(notifications);
      if (uniform && this.database.sqlite) {
        // Hold Kysely's (single) SQLite connection, so no Kysely transaction is open around ours.
        claimed = await this.database.db
          .connection()
          .execute(async () => this.storeSqlite(notifications, expiresAt, options.now, outbox));
      } else if (uniform && this.database.kind === 'postgres')
        claimed = await this.storePostgres(notifications, expiresAt, options.now, outbox);
      else claimed = await this.storeGeneric(notifications, expiresAt, options.now, outbox);
    } catch (error) {
      throw new DeliveryUnavailableError('the notification store is unavailable', 5, { cause: error });
    }
    const delivered = notifications.filter((n) => claimed.has(n.dedupeKey));
    // Stored is delivered: the inbox has it and the outbox row makes some instance push it, so a
    // fan-out hiccup is logged, not failed.
    if (delivered.length > 0) {
      try {
        await this.fanout.publish(delivered);
        await deleteOutboxRow(this.database, outbox.id);
      } catch (error) {
        this.log?.warn({ err: error }, 'live fan-out failed; the outbox relay pushes it later');
      }
    }
    return {
      delivered,
      alreadyDelivered: notifications.filter((n) => !claimed.has(n.dedupeKey)).map((n) => n.dedupeKey),
    };
  }

  private sqliteStatements?: {
    claim: Sqlite.Statement;
    insert: Sqlite.Statement;
    outbox: Sqlite.Statement;
    log: Sqlite.Statement;
  };

  private storeSqlite(
    notifications: readonly Notification[],
    expiresAt: number,
    now: number,
    outbox: OutboxEntry,
  ): Set<string> {
    const handle = this.database.sqlite!;
    // Two statements for the whole batch, each with the batch as one JSON parameter: constant SQL
    // (prepared once), no per-row statement overhead.
    this.sqliteStatements ??= {
      log: handle.prepare(
        `insert into send_log (id, project_id, app_url, title, target_path, sent_by, sent_count, failed_count,
           results, created_at) values (@id, @project_id, @app_url, @title, @target_path, @sent_by, @sent_count,
           @failed_count, @results, @created_at)`,
      ),
      outbox: handle.prepare(
        'insert into notification_outbox (id, notification_ids, created_at, lease_until) values (?, ?, ?, ?)',
      ),
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
    const { claim, insert, outbox: queue, log } = this.sqliteStatements;
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
        queue.run(outbox.id, JSON.stringify(fresh.map((n) => n.id)), now, outbox.leaseUntil);
      }
      if (outbox.record) log.run(sendLogRow(outbox.record));
      return claimed;
    });
    // better-sqlite3 is synchronous: nothing else in this process runs between BEGIN and COMMIT.
    return run.immediate();
  }

  private async storePostgres(
    notifications: readonly Notification[],
    expiresAt: number,
    now: number,
    outbox: OutboxEntry,
  ): Promise<Set<string>> {
    const first = notifications[0]!;
    const row = outbox.record ? sendLogRow(outbox.record) : undefined;
    // A data-modifying WITH runs whether or not the final select reads it.
    const logged = row
      ? sql`, logged as (
          insert into send_log (id, project_id, app_url, title, target_path, sent_by, sent_count, failed_count,
                                results, created_at)
          values (${row.id}, ${row.project_id}, ${row.app_url}, ${row.title}, ${row.target_path}::text,
                  ${row.sent_by}, ${row.sent_count}::int, ${row.failed_count}::int, ${row.results},
                  ${row.created_at}::bigint)
          returning id
        )`
      : sql``;
    const result = await sql<{ dedupe_key: string }>`
      with claimed as (
        insert into dedupe_keys (key, expires_at)
        select k, ${expiresAt}::bigint from unnest(${notifications.map((n) => n.dedupeKey)}::text[]) as k
        on conflict (key) do update set expires_at = excluded.expires_at where dedupe_keys.expires_at <= ${now}::bigint
        returning key
      ), inserted as (
      insert into notifications
        (id, project_id, app_url, wallet_address, title, message, target_path, created_at, read_at, dedupe_key)
      select n.id, ${first.projectId}, ${first.appUrl}, n.address, ${first.title}, ${first.message},
             ${first.targetPath}::text, ${first.createdAt}::bigint, null, n.key
      from unnest(${notifications.map((n) => n.id)}::text[], ${notifications.map((n) => n.walletAddress)}::text[],
                  ${notifications.map((n) => n.dedupeKey)}::text[]) as n(id, address, key)
      join claimed c on c.key = n.key
      returning id, dedupe_key
      ), queued as (
        insert into notification_outbox (id, notification_ids, created_at, lease_until)
        select ${outbox.id}, json_agg(id)::text, ${now}::bigint, ${outbox.leaseUntil}::bigint
        from inserted having count(*) > 0
        returning id
      )${logged}
      select dedupe_key from inserted`.execute(this.database.db);
    return new Set(result.rows.map((r) => r.dedupe_key));
  }

  private async storeGeneric(
    notifications: readonly Notification[],
    expiresAt: number,
    now: number,
    outbox: OutboxEntry,
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
        await tx
          .insertInto('notification_outbox')
          .values({
            id: outbox.id,
            notification_ids: JSON.stringify(fresh.map((n) => n.id)),
            created_at: now,
            lease_until: outbox.leaseUntil,
          })
          .execute();
      }
      if (outbox.record) await tx.insertInto('send_log').values(sendLogRow(outbox.record)).execute();
      return claimed;
    });
  }

  /** Deletes dedupe keys whose window closed. Run now and then by the server. */
  async sweep(now: number): Promise<void> {
    await this.database.db.deleteFrom('dedupe_keys').where('expires_at', '<=', now).execute();
  }
}

/** The outbox row a send writes with its notifications. */
interface OutboxEntry {
  id: string;
  leaseUntil: number;
  /** The send's row in the send log, written in the same transaction. */
  record?: SendRecord;
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
