// Benchmark of the developer API (issue 6): send to 1,000 addresses (all enabled) p50/p99, a users
// page of 500, and the same rows written by a bare batched insert (the physical reference). The
// client runs in the same process. Memory: see rss.mjs. Needs a build (`npx tsc -b tsconfig.build.json`).
//
//   node packages/platform/bench/send.mjs                  # SQLite
//   WHARF_BENCH_POSTGRES_URL=postgres://... node packages/platform/bench/send.mjs
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildPlatformApp, defaultPlatformServerOptions } from '@wharf/platform';
import { getAddress } from 'viem';

const postgresUrl = process.env.WHARF_BENCH_POSTGRES_URL;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-bench-'));
const schema = `wharf_bench_${randomBytes(4).toString('hex')}`;
const app = await buildPlatformApp({
  ...defaultPlatformServerOptions,
  dataDir,
  rateLimit: 1e9,
  ...(postgresUrl ? { databaseUrl: postgresUrl, databaseSchema: schema } : {}),
});
await app.listen({ host: '127.0.0.1', port: 0 });
const url = `http://127.0.0.1:${app.server.address().port}`;

const appUrl = 'https://bench.example';
const { apiKey } = await app.platform.admin.createProject({ name: 'bench', appUrl, whitelisted: true });
const addresses = Array.from({ length: 1000 }, (_, i) =>
  getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`),
);
const now = Date.now();
for (const [i, address] of addresses.entries()) {
  await app.platform.preferences.pin(appUrl, address, { now: now + i });
}

const post = (body) =>
  fetch(`${url}/api/v1/notifications/send`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.json());
const quantiles = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length * 0.5)].toFixed(1), p99: s[Math.floor(s.length * 0.99)].toFixed(1) };
};

const sendTimes = [];
for (let k = 0; k < 110; k++) {
  const t0 = performance.now();
  const r = await post({ app_url: appUrl, wallet_addresses: addresses, title: `Bench ${k}`, message: 'm' });
  if (k >= 10) sendTimes.push(performance.now() - t0);
  if (r.sentCount !== 1000) throw new Error(JSON.stringify(r).slice(0, 200));
}
const pageTimes = [];
for (let k = 0; k < 100; k++) {
  const t0 = performance.now();
  await fetch(`${url}/api/v1/notifications/app/users?app_url=${appUrl}&limit=500`, {
    headers: { 'x-api-key': apiKey },
  }).then((r) => r.json());
  pageTimes.push(performance.now() - t0);
}

// The physical reference: the same rows (notifications + dedupe keys) by one batched insert each.
const db = app.platform.database.db;
const bareTimes = [];
for (let k = 0; k < 50; k++) {
  const rows = addresses.map((a, i) => ({
    id: `BARE${String(k).padStart(4, '0')}${String(i).padStart(18, '0')}`,
    project_id: 'p',
    app_url: appUrl,
    wallet_address: a,
    title: `Bare ${k}`,
    message: 'm',
    target_path: null,
    created_at: now,
    read_at: null,
    dedupe_key: createHash('sha256').update(`${k}:${i}`).digest('base64url'),
  }));
  const t0 = performance.now();
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('notifications').values(rows).execute();
    await tx
      .insertInto('dedupe_keys')
      .values(rows.map((r) => ({ key: r.dedupe_key, expires_at: now })))
      .execute();
  });
  bareTimes.push(performance.now() - t0);
}

const send = quantiles(sendTimes);
const bare = quantiles(bareTimes);
console.log(
  JSON.stringify(
    {
      backend: postgresUrl ? 'postgres' : 'sqlite',
      send1000Ms: send,
      usersPage500Ms: quantiles(pageTimes),
      bareInsert1000Ms: bare,
      sendVsBareRate: (Number(bare.p50) / Number(send.p50)).toFixed(2),
      cpus: os.cpus().length,
      loadavg: os.loadavg().map((x) => x.toFixed(1)),
    },
    null,
    2,
  ),
);
await app.close();
if (postgresUrl) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`drop schema ${schema} cascade`);
  await client.end();
}
fs.rmSync(dataDir, { recursive: true, force: true });
