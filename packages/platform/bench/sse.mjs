// Live delivery (issue 7): N connected SSE clients (default 1,000), one send to all of them;
// p50/p99 from the send request to receipt at each client. Server in its own process (SQLite).
//
//   node packages/platform/bench/sse.mjs [N]
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultPlatformServerOptions, openAdmin, startPlatformServer } from '@wharf/platform';
import { getAddress } from 'viem';

if (process.argv[2] === 'server') {
  const server = await startPlatformServer({
    ...defaultPlatformServerOptions,
    port: 0,
    dataDir: process.argv[3],
    rateLimit: 1e9,
    clientRateLimit: 1e9,
  });
  process.send({ url: server.url });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await server.close();
      process.exit(0);
    }
  });
} else {
  const n = Number(process.argv[2] ?? 1000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-sse-'));
  const admin = await openAdmin({ dataDir });
  const appUrl = 'https://sse.example';
  const { apiKey } = await admin.createProject({ name: 'sse', appUrl, whitelisted: true });
  await admin.close();
  const addresses = Array.from({ length: n }, (_, i) =>
    getAddress(`0x${(i + 1).toString(16).padStart(40, '0')}`),
  );
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(path.join(dataDir, 'notifications.sqlite'));
  const now = Date.now();
  db.transaction(() => {
    addresses.forEach((a, i) => {
      db.prepare('insert into pins values (?, ?, 1, 1, ?, ?, ?)').run(appUrl, a, now + i, now, now);
      const tokenHash = createHash('sha256').update(`token-${i}`).digest('hex');
      db.prepare('insert into sessions values (?, ?, ?, ?)').run(tokenHash, a, now, now + 3600_000);
    });
  })();
  db.close();

  const child = fork(fileURLToPath(import.meta.url), ['server', dataDir]);
  const { url } = await new Promise((resolve) => child.once('message', resolve));
  const received = new Array(n).fill(0);
  const controllers = [];
  await Promise.all(
    addresses.map(async (_, i) => {
      const controller = new AbortController();
      controllers.push(controller);
      const res = await fetch(`${url}/api/v1/client/notifications/stream?access_token=token-${i}`, {
        signal: controller.signal,
      });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      void (async () => {
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) return;
            if (!received[i] && decoder.decode(value).includes('event: notification'))
              received[i] = performance.now();
          }
        } catch {
          // aborted
        }
      })();
    }),
  );
  await new Promise((r) => setTimeout(r, 1000));
  for (let round = 0; round < 5; round++) {
    received.fill(0);
    const t0 = performance.now();
    const res = await fetch(`${url}/api/v1/notifications/send`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        app_url: appUrl,
        wallet_addresses: addresses.slice(0, 1000),
        title: `Round ${round}`,
        message: 'm',
      }),
    });
    const { sentCount } = await res.json();
    const answered = performance.now() - t0;
    const deadline = performance.now() + 5000;
    while (received.some((x) => !x) && performance.now() < deadline)
      await new Promise((r) => setTimeout(r, 2));
    const latencies = received
      .filter(Boolean)
      .map((x) => x - t0)
      .sort((a, b) => a - b);
    const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))].toFixed(0);
    console.log(
      `round ${round}: ${sentCount} sent, answered in ${answered.toFixed(0)} ms; received ${latencies.length}/${n}: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms`,
    );
    await new Promise((r) => setTimeout(r, 300));
  }
  for (const c of controllers) c.abort();
  child.send('stop');
  child.once('exit', () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}
