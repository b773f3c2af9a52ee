#!/usr/bin/env node
// eth_getBalance (or eth_getStorageAt) at latest with 64 concurrent keep-alive connections for
// 5 s: requests/s and p99. The load generator runs in a worker thread (its own event loop).
//   npx tsc -b tsconfig.build.json && node packages/chain/scripts/bench-reads.mjs [METHOD]
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

if (!isMainThread) {
  // A lean HTTP/1.1 keep-alive client on raw sockets: node's http client costs more CPU than the
  // node it measures.
  const { url: u, body } = workerData;
  const url = new URL(u);
  const request = Buffer.from(
    `POST / HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const lat = [];
  let done = 0;
  const end = Date.now() + 5000;
  const t0 = Date.now();
  await Promise.all(
    Array.from(
      { length: 64 },
      () =>
        new Promise((resolve) => {
          const sock = net.connect(Number(url.port), url.hostname);
          let buf = Buffer.alloc(0);
          let sent = 0;
          const send = () => {
            if (Date.now() >= end) {
              sock.end();
              return resolve();
            }
            sent = performance.now();
            sock.write(request);
          };
          sock.on('connect', send);
          sock.on('data', (d) => {
            buf = buf.length ? Buffer.concat([buf, d]) : d;
            for (;;) {
              const head = buf.indexOf('\r\n\r\n');
              if (head < 0) return;
              const m = /content-length: (\d+)/i.exec(buf.subarray(0, head).toString('latin1'));
              const total = head + 4 + (m ? Number(m[1]) : 0);
              if (buf.length < total) return;
              buf = buf.subarray(total);
              lat.push(performance.now() - sent);
              done++;
              send();
            }
          });
          sock.on('error', () => resolve());
        }),
    ),
  );
  lat.sort((a, b) => a - b);
  parentPort.postMessage({
    rps: done / ((Date.now() - t0) / 1000),
    p50: lat[Math.floor(lat.length / 2)],
    p99: lat[Math.floor(lat.length * 0.99)],
  });
  process.exit(0);
}

const { defaultChainNodeOptions, startChainNode } = await import('../dist/index.js');
const method = process.argv[2] ?? 'eth_getBalance';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-bench-reads-'));
const node = await startChainNode({
  ...defaultChainNodeOptions,
  dataDir,
  host: '127.0.0.1',
  port: 0,
  mining: false,
});
const params =
  method === 'eth_getStorageAt'
    ? [node.accounts[0].address, '0x0', 'latest']
    : [node.accounts[0].address, 'latest'];
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
const r = await new Promise((resolve, reject) => {
  const w = new Worker(new URL(import.meta.url), { workerData: { url: node.url, body } });
  w.once('message', resolve);
  w.once('error', reject);
});
console.log(`${method}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`);
await node.close();
fs.rmSync(dataDir, { recursive: true, force: true });
