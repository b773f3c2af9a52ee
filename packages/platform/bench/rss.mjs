// Memory of the platform server (SQLite) in its own process: RSS idle, then after every 2,500 of
// 10,000 sends (10 enabled recipients each), with the heap after a forced GC.
//
//   node packages/platform/bench/rss.mjs
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPlatformServerOptions, startPlatformServer } from '@wharf/platform';
import { getAddress } from 'viem';

if (process.argv[2] === 'server') {
  const server = await startPlatformServer({
    ...defaultPlatformServerOptions,
    port: 0,
    dataDir: process.argv[3],
    rateLimit: 1e9,
  });
  await new Promise((r) => setTimeout(r, 300));
  const report = () => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    return { url: server.url, rss: m.rss, heap: m.heapUsed };
  };
  process.send(report());
  process.on('message', async (message) => {
    if (message === 'report') process.send(report());
    if (message === 'stop') {
      await server.close();
      process.exit(0);
    }
  });
} else {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-rss-'));
  const child = fork(fileURLToPath(import.meta.url), ['server', dataDir], { execArgv: ['--expose-gc'] });
  const ask = () =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send('report');
    });
  const first = await new Promise((resolve) => child.once('message', resolve));
  const mb = (x) => Math.round(x / 1e6);
  console.log(`idle: rss ${mb(first.rss)} MB, heap ${mb(first.heap)} MB`);
  const appUrl = 'https://rss.example';
  // The project through openAdmin (the CLI's path), the pins straight into the store.
  const { openAdmin } = await import('@wharf/platform');
  const admin = await openAdmin({ dataDir });
  const { apiKey } = await admin.createProject({ name: 'rss', appUrl, whitelisted: true });
  await admin.close();
  const addresses = Array.from({ length: 10 }, (_, i) =>
    getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`),
  );
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(dataDir, 'notifications.sqlite'));
  for (const [i, a] of addresses.entries()) {
    db.prepare('insert into pins values (?, ?, 1, 1, ?, ?, ?)').run(
      appUrl,
      a,
      Date.now() + i,
      Date.now(),
      Date.now(),
    );
  }
  db.close();
  let delivered = 0;
  for (let k = 1; k <= 10000; k++) {
    const res = await fetch(`${first.url}/api/v1/notifications/send`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ app_url: appUrl, wallet_addresses: addresses, title: `t${k}`, message: 'm' }),
    });
    delivered += (await res.json()).sentCount;
    if (k % 2500 === 0) {
      const m = await ask();
      console.log(`after ${k} sends (${delivered} delivered): rss ${mb(m.rss)} MB, heap ${mb(m.heap)} MB`);
    }
  }
  child.send('stop');
  child.once('exit', () => fs.rmSync(dataDir, { recursive: true, force: true }));
}
