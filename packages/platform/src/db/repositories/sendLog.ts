/** SQL of the send log: the row a send writes, the owner's pages of it, and the retention sweep. */
import type { SendRecord } from '../../delivery/path.js';
import type { Db } from '../database.js';
import type { SendLogTable } from '../schema.js';

/** The row of a send; written by the delivery path in the transaction of the send's notifications. */
export function sendLogRow(record: SendRecord): SendLogTable {
  return {
    id: record.id,
    project_id: record.projectId,
    app_url: record.appUrl,
    title: record.title,
    target_path: record.targetPath,
    sent_by: record.sentBy,
    sent_count: record.sentCount,
    failed_count: record.failedCount,
    results: JSON.stringify(record.results),
    created_at: record.createdAt,
  };
}

export class SendLogRepository {
  constructor(private readonly db: Db) {}

  /** One project's sends, newest first, older than the send `before` (an id) when given. */
  async page(projectId: string, limit: number, before?: string): Promise<SendRecord[]> {
    let query = this.db
      .selectFrom('send_log')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('id', 'desc')
      .limit(limit);
    if (before !== undefined) query = query.where('id', '<', before);
    const rows = await query.execute();
    return rows.map((r) => ({
      id: r.id,
      projectId: r.project_id,
      appUrl: r.app_url,
      title: r.title,
      targetPath: r.target_path,
      sentBy: r.sent_by === 'dashboard' ? 'dashboard' : 'key',
      sentCount: Number(r.sent_count),
      failedCount: Number(r.failed_count),
      results: JSON.parse(r.results),
      createdAt: Number(r.created_at),
    }));
  }

  /** Deletes the sends made before `cutoff` (Unix ms). Run now and then by the server. */
  async sweep(cutoff: number): Promise<void> {
    await this.db.deleteFrom('send_log').where('created_at', '<', cutoff).execute();
  }
}
