import type { Kysely } from 'kysely';

/**
 * The send log: one row per send (API key or dashboard test send), written in the transaction that
 * stores its notifications, with its per-address results as JSON. Pruned after `--send-log-days`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('send_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('app_url', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('target_path', 'text')
    .addColumn('sent_by', 'text', (c) => c.notNull())
    .addColumn('sent_count', 'integer', (c) => c.notNull())
    .addColumn('failed_count', 'integer', (c) => c.notNull())
    .addColumn('results', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('send_log_project').on('send_log').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('send_log_created').on('send_log').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('send_log').ifExists().execute();
}
