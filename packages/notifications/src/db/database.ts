/**
 * Opens the notifications store: SQLite at `<dataDir>/notifications.sqlite` (WAL) by default, or
 * PostgreSQL with a `postgres://` URL; then brings the schema up to date with the migrations.
 */
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrationProvider } from './migrations/index.js';
import type { Tables } from './schema.js';

export type Db = Kysely<Tables>;
export type DbKind = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema to use (created if missing); default `public`. Tests give each run its own. */
  databaseSchema?: string;
  /** Connections in the PostgreSQL pool. */
  poolSize?: number;
}

export interface Database {
  db: Db;
  kind: DbKind;
  /** The better-sqlite3 handle under `db` (SQLite only), for hot paths that batch prepared statements. */
  sqlite?: Sqlite.Database;
  close(): Promise<void>;
}

const schemaNameRe = /^[a-z_][a-z0-9_]{0,62}$/;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const database = options.databaseUrl ? openPostgres(options) : openSqlite(options);
  try {
    if (database.kind === 'postgres' && options.databaseSchema) {
      await sql`create schema if not exists ${sql.id(options.databaseSchema)}`.execute(database.db);
    }
    await migrateToLatest(
      database.db,
      database.kind === 'postgres' ? (options.databaseSchema ?? 'public') : undefined,
    );
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function openSqlite(options: DatabaseOptions): Database {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const file = path.join(options.dataDir, 'notifications.sqlite');
  const handle = new Sqlite(file);
  handle.pragma('journal_mode = WAL');
  handle.pragma('synchronous = NORMAL');
  handle.pragma('busy_timeout = 5000');
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: handle }) });
  return { db, kind: 'sqlite', sqlite: handle, close: () => db.destroy() };
}

function openPostgres(options: DatabaseOptions): Database {
  const schema = options.databaseSchema;
  if (schema !== undefined && !schemaNameRe.test(schema))
    throw new Error(`bad database schema name: ${schema}`);
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.poolSize ?? 10,
    // bigint (int8) columns hold millisecond times and counts: read them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: any) =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as any,
    },
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/** `schema`: where the migration bookkeeping lives (PostgreSQL); unqualified, Kysely would look in every schema. */
/**
 * `column IN (list)` with the list as ONE parameter (a PostgreSQL array, or a JSON array that
 * SQLite unpacks with json_each): a send's 1,000 addresses do not become 1,000 placeholders.
 */
export function inList(kind: DbKind, column: string, values: readonly string[]) {
  return kind === 'postgres'
    ? sql<boolean>`${sql.ref(column)} = any(${values as string[]}::text[])`
    : sql<boolean>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
}

export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`database migration ${failed ?? ''} failed: ${(error as Error).message ?? error}`, {
      cause: error,
    });
  }
}

/** Drops every table (the migrations' `down`, newest first). For tests and `wharf` resets. */
export async function migrateDown(db: Kysely<any>, schema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider: migrationProvider, migrationTableSchema: schema });
  for (;;) {
    const { error, results } = await migrator.migrateDown();
    if (error) throw error;
    if (!results || results.length === 0) return;
  }
}
