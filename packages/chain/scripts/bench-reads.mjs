#!/usr/bin/env node
// eth_getBalance (or eth_getStorageAt) at latest with 64 concurrent keep-alive connections for
// 5 s: requests/s and p99. The load generator runs in a worker thread (its own event loop).
//   npx tsc -b tsconfig.build.json && node packages/chain/scripts/bench-reads.mjs [METHOD]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

if (!isMainThread) {
  const { url: u, body } = workerData;
  const url = new URL(u);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const lat = [];
  let done = 0;
  const end = Date.now() + 5000;
  const one = () =>
    new Promise((resolve, reject) => {
      const t = performance.now();
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            lat.push(performance.now() - t);
            done++;
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (Date.now() < end) await one();
    }),
  );
  lat.sort((a, b) => a - b);
  parentPort.postMessage({
    rps: done / ((Date.now() - t0) / 1000),
    p50: lat[Math.floor(lat.length / 2)],
    p99: lat[Math.floor(lat.length * 0.99)],
  });
  agent.destroy();
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
