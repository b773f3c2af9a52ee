/**
 * Opens the notifications store: SQLite at `<dataDir>/notifications.sqlite` (WAL) by default, or
 * PostgreSQL with a `postgres://` URL; then brings the schema up to date with the migrations.
 */
import fs from 'node:fs';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrations } from './migrations/index.js';
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
    await migrateToLatest(database.db, database.kind);
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
  // FULL: a commit is on disk before the answer (a send answered 200 survives a power cut).
  // NORMAL in WAL mode may lose the last commits; the notification tables are not a cache.
  handle.pragma('synchronous = FULL');
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
    // While the server is unreachable a request fails after this long rather than waiting.
    connectionTimeoutMillis: 5_000,
    // bigint (int8) columns hold millisecond times and counts: read them as numbers.
    types: {
      getTypeParser: ((oid: number, format?: any) =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as any,
    },
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A connection that the server closes (a restart, a failover) reports an 'error' event: on the
  // pool while idle, on the client while checked out between two queries. Without listeners the
  // process would die; the pool drops such a client on release and opens new ones once the server
  // is back (the failing query itself rejects and answers 503).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
}

/**
 * `column IN (list)` with the list as ONE parameter (a PostgreSQL array, or a JSON array that
 * SQLite unpacks with json_each): a send's 1,000 addresses do not become 1,000 placeholders.
 */
export function inList(kind: DbKind, column: string, values: readonly string[]) {
  return kind === 'postgres'
    ? sql<boolean>`${sql.ref(column)} = any(${values as string[]}::text[])`
    : sql<boolean>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
}

/**
 * Runs the pending migrations, in name (timestamp) order, each recorded in `wharf_migrations`, all
 * in one transaction that holds the migration lock (an advisory lock per schema on PostgreSQL,
 * BEGIN IMMEDIATE on SQLite), so two processes opening the store at once migrate it once. (Not
 * Kysely's Migrator: it looks for its tables by listing every schema of the server, which fails
 * when another schema is dropped meanwhile.)
 */
export async function migrateToLatest(db: Kysely<any>, kind: DbKind): Promise<void> {
  await withMigrationLock(db, kind, async (conn) => {
    const done = await executedMigrations(conn);
    for (const name of Object.keys(migrations).sort()) {
      if (done.has(name)) continue;
      await migrations[name]!.up(conn);
      await sql`insert into wharf_migrations (name, executed_at) values (${name}, ${Date.now()})`.execute(
        conn,
      );
    }
  });
}

/** Runs every executed migration's `down`, newest first. For tests and resets. */
export async function migrateDown(db: Kysely<any>, kind: DbKind): Promise<void> {
  await withMigrationLock(db, kind, async (conn) => {
    const done = await executedMigrations(conn);
    for (const name of Object.keys(migrations).sort().reverse()) {
      if (!done.has(name)) continue;
      await migrations[name]!.down?.(conn);
      await sql`delete from wharf_migrations where name = ${name}`.execute(conn);
    }
  });
}

async function executedMigrations(conn: Kysely<any>): Promise<Set<string>> {
  const rows = await sql<{ name: string }>`select name from wharf_migrations`.execute(conn);
  return new Set(rows.rows.map((r) => r.name));
}

async function withMigrationLock(
  db: Kysely<any>,
  kind: DbKind,
  body: (conn: Kysely<any>) => Promise<void>,
): Promise<void> {
  await db.connection().execute(async (conn) => {
    await sql.raw(kind === 'sqlite' ? 'begin immediate' : 'begin').execute(conn);
    try {
      if (kind === 'postgres') {
        await sql`select pg_advisory_xact_lock(hashtext(current_schema() || ':wharf_migrations'))`.execute(
          conn,
        );
      }
      await sql`create table if not exists wharf_migrations (name text primary key, executed_at bigint not null)`.execute(
        conn,
      );
      await body(conn);
      await sql.raw('commit').execute(conn);
    } catch (error) {
      await sql
        .raw('rollback')
        .execute(conn)
        .catch(() => {});
      throw new Error(`database migration failed: ${(error as Error).message ?? error}`, { cause: error });
    }
  });
}
