import type { Kysely } from 'kysely';

/** Sign-In with Ethereum nonces and bearer sessions of the client API. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('auth_nonces')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sessions').ifExists().execute();
  await db.schema.dropTable('auth_nonces').ifExists().execute();
}
