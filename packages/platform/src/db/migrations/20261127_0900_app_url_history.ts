import { type Kysely, sql } from 'kysely';

/**
 * Every (app URL, project) that was ever registered, so that a URL another project used is not
 * handed to a new owner without the operator (issue 29, finding 4). Filled from the URLs
 * registered now and from those the sent notifications name. Pins of URLs no project holds any
 * more — left behind by deletions before this migration — are dropped: they belonged to the old
 * owner's users.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_url_history')
    .addColumn('app_url', 'text', (c) => c.notNull())
    .addColumn('project_id', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_url_history_pk', ['app_url', 'project_id'])
    .execute();
  await sql`insert into app_url_history (app_url, project_id, registered_at)
    select app_url, project_id, created_at from app_urls`.execute(db);
  await sql`insert into app_url_history (app_url, project_id, registered_at)
    select app_url, project_id, min(created_at) from notifications n
    where not exists (select 1 from app_url_history h where h.app_url = n.app_url and h.project_id = n.project_id)
    group by app_url, project_id`.execute(db);
  await sql`delete from pins where app_url not in (select app_url from app_urls)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('app_url_history').ifExists().execute();
}
