#!/usr/bin/env node
/**
 * Notifications service benchmarks, on SQLite and (with WHARF_TEST_POSTGRES_URL or --pg URL) on
 * PostgreSQL:
 *   send     POST /api/v1/notifications/send to 1,000 enabled addresses: p50, p99
 *   bare     the same rows (1,000 notifications + 1,000 dedupe keys) by a bare batched insert in
 *            one transaction: the physical reference the service is compared with
 *   users    GET /api/v1/notifications/app/users?limit=500: p50, p99
 *   memory   RSS idle, then after 10,000 sends (10 addresses each): flat or not
 * Usage: node bench/notifications.mjs [--rounds 50] [--pg postgres://...] [--sends 10000]
 * Needs `npm run build` first.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openAdmin, startPlatformServer } from '@wharf/platform';
import Database from 'better-sqlite3';
import pg from 'pg';
import { getAddress } from 'viem';
import { table } from './lib/load.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '50' },
    pg: { type: 'string', default: process.env.WHARF_TEST_POSTGRES_URL },
    sends: { type: 'string', default: '10000' },
  },
});
const rounds = Number(values.rounds);
const APP = 'https://bench.example';

// EIP-55 form: the preferences store is written below the HTTP edge, which normalizes.
const addresses = Array.from({ length: 1000 }, (_, i) =>
  getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`),
);

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99), mean: times.reduce((a, b) => a + b, 0) / n };
}

async function post(url, key, body) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  const j = await r.json();
  if (r.status !== 200) throw new Error(`HTTP ${r.status}: ${JSON.stringify(j)}`);
  return j;
}

async function backend(name, store) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-nbench-'));
  let preferences;
  const server = await startPlatformServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    ...store,
    rateLimit: 1_000_000_000,
    trustProxy: false,
    chainId: 31337,
    adminToken: 'bench',
    preferences: (real) => {
      preferences = real;
      return real;
    },
  });
  const admin = await openAdmin({ dataDir, ...store });
  const { apiKey } = await admin.createProject({ name: 'bench', appUrl: APP, whitelisted: true });
  await admin.close();
  const now = Date.now();
  for (const a of addresses) await preferences.pin(APP, a, { now });

  const sendUrl = `${server.url}/api/v1/notifications/send`;
  const send = await timed(rounds, async (i) => {
    const r = await post(sendUrl, apiKey, {
      app_url: APP,
      wallet_addresses: addresses,
      title: `t${i}`,
      message: 'hello',
    });
    if (r.sentCount !== 1000) throw new Error(`sent ${r.sentCount}`);
  });
  const users = await timed(rounds, async () => {
    const r = await fetch(
      `${server.url}/api/v1/notifications/app/users?app_url=${encodeURIComponent(APP)}&limit=500`,
      {
        headers: { 'x-api-key': apiKey },
      },
    );
    if (r.status !== 200) throw new Error(`users HTTP ${r.status}`);
    await r.json();
  });
  await server.close();
  const bare = await bareInsert(name, dataDir, store);
  return { name, send, users, bare };
}

/** The physical reference: the rows a send writes, by one batched insert in one transaction. */
async function bareInsert(name, dataDir, store) {
  const rows = (i) =>
    addresses.map((a, j) => ({
      id: `bare-${i}-${j}`,
      key: `bare-${i}-${j}`,
      a,
    }));
  if (name === 'sqlite') {
    const db = new Database(path.join(dataDir, 'notifications.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const r = await timed(rounds, (i) => {
      const batch = rows(i);
      const tx = db.transaction(() => {
        db.prepare(
          `INSERT INTO dedupe_keys (key, expires_at) VALUES ${batch.map(() => '(?, ?)').join(',')}`,
        ).run(...batch.flatMap((b) => [b.key, Date.now() + 86_400_000]));
        db.prepare(
          `INSERT INTO notifications (id, project_id, app_url, wallet_address, title, message, target_path, created_at, read_at, dedupe_key) VALUES ${batch.map(() => '(?,?,?,?,?,?,?,?,?,?)').join(',')}`,
        ).run(...batch.flatMap((b) => [b.id, 'p', APP, b.a, 't', 'hello', null, Date.now(), null, b.key]));
      });
      tx();
    });
    db.close();
    return r;
  }
  const client = new pg.Client({ connectionString: store.databaseUrl });
  await client.connect();
  await client.query(`SET search_path TO ${store.databaseSchema}`);
  const r = await timed(rounds, async (i) => {
    const batch = rows(i);
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO dedupe_keys (key, expires_at) VALUES ${batch.map((_, k) => `($${2 * k + 1}, $${2 * k + 2})`).join(',')}`,
      batch.flatMap((b) => [b.key, Date.now() + 86_400_000]),
    );
    await client.query(
      `INSERT INTO notifications (id, project_id, app_url, wallet_address, title, message, target_path, created_at, read_at, dedupe_key) VALUES ${batch.map((_, k) => `(${Array.from({ length: 10 }, (_, c) => `$${10 * k + c + 1}`).join(',')})`).join(',')}`,
      batch.flatMap((b) => [b.id, 'p', APP, b.a, 't', 'hello', null, Date.now(), null, b.key]),
    );
    await client.query('COMMIT');
  });
  await client.query(`DROP SCHEMA ${store.databaseSchema} CASCADE`);
  await client.end();
  return r;
}

async function memory() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-nbench-mem-'));
  let preferences;
  const server = await startPlatformServer({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    rateLimit: 1_000_000_000,
    trustProxy: false,
    chainId: 31337,
    adminToken: 'bench',
    preferences: (real) => {
      preferences = real;
      return real;
    },
  });
  const admin = await openAdmin({ dataDir });
  const { apiKey } = await admin.createProject({ name: 'mem', appUrl: APP, whitelisted: true });
  await admin.close();
  for (const a of addresses.slice(0, 10)) await preferences.pin(APP, a, { now: Date.now() });
  global.gc?.();
  const idle = process.memoryUsage().rss;
  const samples = [];
  const sends = Number(values.sends);
  for (let i = 0; i < sends; i++) {
    await post(`${server.url}/api/v1/notifications/send`, apiKey, {
      app_url: APP,
      wallet_addresses: addresses.slice(0, 10),
      title: `m${i}`,
      message: 'memory',
    });
    if ((i + 1) % (sends / 5) === 0) {
      global.gc?.();
      samples.push(process.memoryUsage().rss);
    }
  }
  await server.close();
  return { idle, samples };
}

const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;
const results = [await backend('sqlite', {})];
if (values.pg)
  results.push(
    await backend('postgresql', { databaseUrl: values.pg, databaseSchema: `bench_${Date.now()}` }),
  );
const rows = results.map((r) => ({
  store: r.name,
  'send 1,000 p50 ms': r.send.p50.toFixed(1),
  'send p99 ms': r.send.p99.toFixed(1),
  'bare insert p50 ms': r.bare.p50.toFixed(1),
  'service / bare rate': (r.bare.mean / r.send.mean).toFixed(2),
  'users 500 p50 ms': r.users.p50.toFixed(1),
  'users p99 ms': r.users.p99.toFixed(1),
}));
console.log(
  `\nsend to 1,000 enabled addresses and a users page of 500, ${rounds} rounds\n${table(rows, Object.keys(rows[0]))}`,
);
console.log('goals: send p50 <= 30 ms on SQLite, <= 60 ms on PostgreSQL; rate >= 1/3 of the bare insert');
const mem = await memory();
console.log(
  `\nRSS (server in this process): idle ${mb(mem.idle)}; after each fifth of ${values.sends} sends: ${mem.samples.map(mb).join(', ')} (goal: idle < 150 MB, flat)`,
);
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(
  path.join(
    import.meta.dirname,
    'results',
    `notifications-${new Date().toISOString().replace(/[:.]/g, '-')}.json`,
  ),
  JSON.stringify({ results, memory: mem }, null, 2),
);
process.exit(0);
