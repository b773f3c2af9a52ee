/**
 * Test backends: every suite runs on SQLite and on PostgreSQL (WHARF_TEST_POSTGRES_URL). Each app
 * gets its own SQLite directory or PostgreSQL schema, so parallel test files never collide. When a
 * server's URL is unset the backend is skipped with a visible note, except under CI where that
 * fails.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { getAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { buildPlatformApp, type PlatformServerOptions } from '../src/index.js';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Store options for a fresh, empty store. */
  fresh(): Promise<Pick<PlatformServerOptions, 'dataDir' | 'databaseUrl' | 'databaseSchema'>>;
}

const postgresUrl = process.env.WHARF_TEST_POSTGRES_URL;
export const redisUrl = process.env.WHARF_TEST_REDIS_URL;

const createdDirs: string[] = [];
const createdSchemas: string[] = [];

const sqlite: Backend = {
  name: 'sqlite',
  async fresh() {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-notif-'));
    createdDirs.push(dataDir);
    return { dataDir };
  },
};

const postgres: Backend = {
  name: 'postgres',
  async fresh() {
    const databaseSchema = `wharf_test_${randomBytes(6).toString('hex')}`;
    createdSchemas.push(databaseSchema);
    return { dataDir: os.tmpdir(), databaseUrl: postgresUrl!, databaseSchema };
  },
};

function available(): Backend[] {
  const list: Backend[] = [sqlite];
  if (postgresUrl) list.push(postgres);
  else if (process.env.CI)
    throw new Error('CI is set but WHARF_TEST_POSTGRES_URL is not: the PostgreSQL suite must run');
  else console.warn('note: WHARF_TEST_POSTGRES_URL unset — PostgreSQL backend skipped');
  return list;
}

export const backends = available();

export function requireRedis(): string | undefined {
  if (!redisUrl && process.env.CI)
    throw new Error('CI is set but WHARF_TEST_REDIS_URL is not: Redis tests must run');
  if (!redisUrl) console.warn('note: WHARF_TEST_REDIS_URL unset — Redis tests skipped');
  return redisUrl;
}

/** Drops the schemas and directories this file created. */
export async function cleanupBackends(): Promise<void> {
  for (const dir of createdDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  if (postgresUrl && createdSchemas.length > 0) {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    for (const schema of createdSchemas.splice(0))
      await client.query(`drop schema if exists ${schema} cascade`);
    await client.end();
  }
}

export const baseOptions: PlatformServerOptions = {
  host: '127.0.0.1',
  port: 0,
  dataDir: '',
  rateLimit: 1_000_000,
  trustProxy: false,
  chainId: 31337,
  adminToken: 'admin-token-for-tests',
};

export const APP_URL = 'https://app.example.com';

export interface TestApp {
  app: FastifyInstance;
  apiKey: string;
  projectId: string;
  /** Pins (and by default opts in) through the preferences store. */
  pin(address: string, enabled?: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function startApp(
  backend: Backend,
  overrides: Partial<PlatformServerOptions> = {},
  project: { appUrl?: string; whitelisted?: boolean } = {},
): Promise<TestApp> {
  const store = await backend.fresh();
  const app = await buildPlatformApp({ ...baseOptions, ...store, ...overrides });
  const created = await app.platform.admin.createProject({
    name: 'Test app',
    appUrl: project.appUrl ?? APP_URL,
    whitelisted: project.whitelisted ?? true,
  });
  let tick = 0;
  return {
    app,
    apiKey: created.apiKey,
    projectId: created.projectId,
    async pin(address, enabled = true) {
      await app.platform.preferences.pin(project.appUrl ?? APP_URL, address, {
        notificationsEnabled: enabled,
        now: Date.now() + tick++,
      });
    },
    close: () => app.close(),
  };
}

/** A deterministic EIP-55 address from a number. */
export function addressOf(n: number): string {
  return getAddress(`0x${n.toString(16).padStart(40, '0')}`);
}

export interface ListeningApp extends TestApp {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
}

/** `startApp`, listening on 127.0.0.1 with a free port: attacks over real sockets. */
export async function listenApp(
  backend: Backend,
  overrides: Partial<PlatformServerOptions> = {},
  project: { appUrl?: string; whitelisted?: boolean } = {},
): Promise<ListeningApp> {
  const t = await startApp(backend, overrides, project);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { ...t, url: `http://127.0.0.1:${port}`, port };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/**
 * One HTTP request with exactly these headers (fetch will not send a forged Host); resolves with
 * the status, headers and body.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (c: Buffer) => chunks.push(c));
        response.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            json: () => JSON.parse(body),
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

/**
 * Signs `account` in over real HTTP (nonce, SIWE message for the listening host, verify) on the
 * client API or the dashboard; resolves with the session token. Throws unless verify answers 200.
 */
export async function signInOverHttp(
  t: ListeningApp,
  account: PrivateKeyAccount,
  realm: 'client' | 'dashboard' = 'client',
): Promise<string> {
  const base = `/api/v1/${realm}/auth`;
  const { nonce } = (await rawRequest(`${t.url}${base}/nonce`, { method: 'POST' })).json();
  const host = `127.0.0.1:${t.port}`;
  const message = createSiweMessage({
    address: account.address,
    chainId: 31337,
    version: '1',
    domain: host,
    uri: `http://${host}/`,
    nonce,
  });
  const res = await rawRequest(`${t.url}${base}/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message, signature: await account.signMessage({ message }) }),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${res.body}`);
  return res.json().token;
}
