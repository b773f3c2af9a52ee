import type { Kysely } from 'kysely';

/** Projects, keys, app URLs, pins, notifications and dedupe keys. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('projects')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('whitelisted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .execute();
  await db.schema.createIndex('projects_owner').on('projects').column('owner').execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('key_hash', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_project').on('api_keys').column('project_id').execute();

  await db.schema
    .createTable('app_urls')
    .addColumn('app_url', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('app_urls_project').on('app_urls').column('project_id').execute();

  await db.schema
    .createTable('pins')
    .addColumn('app_url', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('pinned', 'integer', (c) => c.notNull())
    .addColumn('notifications_enabled', 'integer', (c) => c.notNull())
    .addColumn('sort_at', 'bigint', (c) => c.notNull())
    .addColumn('pinned_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('pins_pk', ['app_url', 'address'])
    .execute();
  await db.schema.createIndex('pins_walk').on('pins').columns(['app_url', 'sort_at', 'address']).execute();
  await db.schema.createIndex('pins_address').on('pins').columns(['address', 'app_url']).execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('app_url', 'text', (c) => c.notNull())
    .addColumn('wallet_address', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('target_path', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('read_at', 'bigint')
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notifications_inbox')
    .on('notifications')
    .columns(['wallet_address', 'id'])
    .execute();

  await db.schema
    .createTable('dedupe_keys')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('dedupe_keys_expiry').on('dedupe_keys').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['dedupe_keys', 'notifications', 'pins', 'app_urls', 'api_keys', 'projects']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
