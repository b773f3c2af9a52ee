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
      const tables = async () =>
        (await database.db.introspection.getTables())
          .filter((t) => schema === undefined || t.schema === schema)
          .map((t) => t.name)
          .sort();
      expect(await tables()).toEqual(
        [
          'api_keys',
          'app_urls',
          'auth_nonces',
          'dedupe_keys',
          'notifications',
          'pins',
          'projects',
          'sessions',
        ].sort(),
      );
      await migrateDown(database.db, schema);
      expect(await tables()).toEqual([]);
      await migrateToLatest(database.db, schema);
      expect(await tables()).toHaveLength(8);
      await sql`select count(*) from notifications`.execute(database.db);
    } finally {
      await database.close();
    }
  });
});
