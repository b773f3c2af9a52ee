/** SQL of one wallet's inbox: the notifications delivered to it, newest first. */
import type { Notification } from '../../delivery/path.js';
import type { Db } from '../database.js';
import type { NotificationsTable } from '../schema.js';

export function toNotification(row: NotificationsTable): Notification {
  return {
    id: row.id,
    projectId: row.project_id,
    appUrl: row.app_url,
    walletAddress: row.wallet_address,
    title: row.title,
    message: row.message,
    targetPath: row.target_path,
    createdAt: row.created_at,
    readAt: row.read_at,
    dedupeKey: row.dedupe_key,
  };
}

export class InboxRepository {
  constructor(private readonly db: Db) {}

  /** Newest first, strictly older than `before` (an id). */
  async list(
    address: string,
    query: { before?: string; limit: number; unreadOnly: boolean },
  ): Promise<Notification[]> {
    let q = this.db.selectFrom('notifications').selectAll().where('wallet_address', '=', address);
    if (query.unreadOnly) q = q.where('read_at', 'is', null);
    if (query.before !== undefined) q = q.where('id', '<', query.before);
    const rows = await q.orderBy('id', 'desc').limit(query.limit).execute();
    return rows.map(toNotification);
  }

  /** Oldest first, strictly newer than `after` (an id): what a reconnecting stream missed. */
  async since(address: string, after: string, limit: number): Promise<Notification[]> {
    const rows = await this.db
      .selectFrom('notifications')
      .selectAll()
      .where('wallet_address', '=', address)
      .where('id', '>', after)
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
    return rows.map(toNotification);
  }

  async unreadCount(address: string): Promise<number> {
    const row = await this.db
      .selectFrom('notifications')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('wallet_address', '=', address)
      .where('read_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Marks some (ids) or all unread notifications of the wallet read, in one statement. */
  async markRead(address: string, which: { ids: string[] } | { all: true }, now: number): Promise<number> {
    let q = this.db
      .updateTable('notifications')
      .set({ read_at: now })
      .where('wallet_address', '=', address)
      .where('read_at', 'is', null);
    if ('ids' in which) {
      if (which.ids.length === 0) return 0;
      q = q.where('id', 'in', which.ids);
    }
    const result = await q.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
