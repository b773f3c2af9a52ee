import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Webhooks for app developers: one webhook (URL and signing secret) per project, and the durable
 * queue of events, which is also the delivery log. An event is written in the same transaction as
 * the pin change it reports; `seq` orders the events of one (app URL, wallet) for delivery.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('project_webhooks')
    .addColumn('project_id', 'text', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('app_url', 'text', (c) => c.notNull())
    .addColumn('wallet_address', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('deadline_at', 'bigint', (c) => c.notNull())
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('webhook_events_due')
    .on('webhook_events')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_events_order')
    .on('webhook_events')
    .columns(['app_url', 'wallet_address', 'seq'])
    .execute();
  await db.schema
    .createIndex('webhook_events_project')
    .on('webhook_events')
    .columns(['project_id', 'seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_events').ifExists().execute();
  await db.schema.dropTable('project_webhooks').ifExists().execute();
}
