/** The migrations go down and up again on both backends, and a second open is a no-op. */
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateDown, migrateToLatest, openDatabase } from '../src/db/database.js';
import { migrations } from '../src/db/migrations/index.js';
import { backends, cleanupBackends } from './helpers.js';

afterAll(cleanupBackends);

describe.each(backends)('migrations on $name', (backend) => {
  it('are timestamped, go down to nothing and back up', async () => {
    expect(Object.keys(migrations).every((name) => /^\d{8}_\d{4}_[a-z_]+$/.test(name))).toBe(true);
    const options = await backend.fresh();
    const first = await openDatabase(options);
    await first.close();
    const database = await openDatabase(options); // already up to date
    const schema = database.kind === 'postgres' ? (options.databaseSchema ?? 'public') : undefined;
    try {
      // The catalog of this schema only (Kysely's introspection lists every schema, which races
      // with other test files dropping theirs).
      const tables = async () =>
        (schema === undefined
          ? await sql<{
              name: string;
            }>`select name from sqlite_master where type = 'table' and name not like 'wharf_migrations' and name not like 'sqlite%'`.execute(
              database.db,
            )
          : await sql<{
              name: string;
            }>`select tablename as name from pg_catalog.pg_tables where schemaname = ${schema} and tablename != 'wharf_migrations'`.execute(
              database.db,
            )
        ).rows
          .map((r) => r.name)
          .sort();
      expect(await tables()).toEqual(
        [
          'api_keys',
          'app_url_history',
          'app_urls',
          'auth_nonces',
          'dedupe_keys',
          'notification_outbox',
          'notifications',
          'pins',
          'projects',
          'project_webhooks',
          'send_log',
          'sessions',
          'webhook_events',
        ].sort(),
      );
      await migrateDown(database.db, database.kind);
      expect(await tables()).toEqual([]);
      await migrateToLatest(database.db, database.kind);
      expect(await tables()).toContain('webhook_events');
      expect(await tables()).toContain('send_log');
      expect(await tables()).toHaveLength(13);
      await sql`select count(*) from notifications`.execute(database.db);
    } finally {
      await database.close();
    }
  });
});

const postgresUrl = process.env.WHARF_TEST_POSTGRES_URL;
describe.skipIf(!postgresUrl)('migrations on a shared PostgreSQL server', () => {
  it('survive other schemas being dropped meanwhile ', async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    let stop = false;
    const churn = (async () => {
      for (let i = 0; !stop; i++) {
        const name = `wharf_churn_${process.pid}_${i}`;
        await client.query(`create schema ${name}`);
        await client.query(`create table ${name}.t (x int)`);
        await client.query(`drop schema ${name} cascade`);
      }
    })();
    try {
      for (let k = 0; k < 15; k++) {
        const options = await backends.find((b) => b.name === 'postgres')!.fresh();
        const database = await openDatabase(options);
        await database.close();
      }
    } finally {
      stop = true;
      await churn;
      await client.end();
    }
  }, 60_000);
});
