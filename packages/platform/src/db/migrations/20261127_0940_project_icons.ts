import type { Kysely } from 'kysely';

/** An icon URL per project, shown with its name in the platform app (inbox, catalog). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('icon_url', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').dropColumn('icon_url').execute();
}
