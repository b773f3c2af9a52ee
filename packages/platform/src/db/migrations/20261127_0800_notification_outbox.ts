import type { Kysely } from 'kysely';

/**
 * The live-push outbox: one row per stored send, written in the same transaction as its
 * notifications, deleted once the push reached the fan-out. A row whose lease ran out (its writer
 * died or could not publish) is pushed by any instance's relay. See docs/decisions/0170.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notification_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** JSON array of the notification ids of one send. */
    .addColumn('notification_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notification_outbox_lease_idx')
    .on('notification_outbox')
    .column('lease_until')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('notification_outbox').ifExists().execute();
}
