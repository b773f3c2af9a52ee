#!/usr/bin/env node
// Submit-to-pending latency: the time from eth_sendRawTransaction returning to the flashblock
// that pre-confirms the transaction (the moment `pending` reads switch to it, seen on the node's
// /flashblocks stream). Offers N signed transfers at R per second from 20 senders to a node in
// its own process (2 s blocks, 200 ms flashblocks), then prints p50/p99 latency, the interval
// between flashblocks and its deviation from the setting, and flashblocks per block.
//   npx tsc -b tsconfig.build.json && node packages/chain/scripts/bench-preconf.mjs [N=400] [R=100]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { keccak256 } from 'viem';
import WebSocket from 'ws';

const N = Number(process.argv[2] ?? 400);
const RATE = Number(process.argv[3] ?? 100);
const INTERVAL = 200;
const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, '../dist/index.js');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-bench-preconf-'));

const childSource = `
import { defaultChainNodeOptions, startChainNode } from ${JSON.stringify(dist)};
const node = await startChainNode({ ...defaultChainNodeOptions, host: '127.0.0.1', port: 0,
  dataDir: process.argv[1], blockTime: 2, flashblockInterval: ${INTERVAL}, accounts: 20 });
process.stdout.write(JSON.stringify({ url: node.url, wsUrl: node.wsUrl,
  keys: node.accounts.map((a) => a.privateKey) }) + '\\n');
process.on('SIGTERM', async () => { await node.close(); process.exit(0); });
`;
const child = spawn(
  process.execPath,
  [
    ...(process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/preconf-prof'] : []),
    '--input-type=module',
    '-e',
    childSource,
    dataDir,
  ],
  {
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
// Never leave the node behind, whatever happens here.
process.on('exit', () => {
  child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});
const info = await new Promise((resolve, reject) => {
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    if (buf.includes('\n')) resolve(JSON.parse(buf.split('\n')[0]));
  });
  child.on('exit', (code) => reject(new Error(`node exited with ${code}`)));
});

// The node's resident memory (Linux), sampled every second.
const rssMb = () => {
  try {
    const m = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/);
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
};
const rss = [{ t: 0, mb: rssMb() }];
const rssStart = performance.now();
const rssTimer = setInterval(() => rss.push({ t: (performance.now() - rssStart) / 1000, mb: rssMb() }), 1000);

// Sign everything first: signing is not what we measure.
const common = createCustomCommon({ chainId: 31337 }, Mainnet, { hardfork: Hardfork.Prague });
const raws = [];
for (let i = 0; i < N; i++) {
  const key = info.keys[i % info.keys.length];
  const tx = createFeeMarket1559Tx(
    {
      nonce: Math.floor(i / info.keys.length),
      to: `0x${(0x1000 + i).toString(16).padStart(40, '0')}`,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337n,
    },
    { common },
  ).sign(Buffer.from(key.slice(2), 'hex'));
  raws.push(`0x${Buffer.from(tx.serialize()).toString('hex')}`);
}

const returnedAt = new Map(); // hash -> time eth_sendRawTransaction returned
const seenAt = new Map(); // hash -> time its flashblock arrived
const flashblocks = []; // { at, index, block }
const ws = new WebSocket(`${info.wsUrl}/flashblocks`);
await new Promise((r) => ws.once('open', r));
ws.on('message', (d) => {
  const at = performance.now();
  const m = JSON.parse(d.toString());
  flashblocks.push({ at, index: m.index, block: m.metadata.block_number });
  for (const raw of m.diff.transactions) seenAt.set(keccak256(raw), at);
});

const post = (body) =>
  fetch(info.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.json());

const refused = new Map(); // message -> count
const t0 = performance.now();
const sends = [];
// Each sender submits its transactions in nonce order, one at a time (as a wallet does); all
// senders together offer RATE per second.
const lastOf = new Map();
for (let i = 0; i < N; i++) {
  const due = t0 + (i * 1000) / RATE;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((r) => setTimeout(r, wait));
  const raw = raws[i];
  const sender = i % info.keys.length;
  const send = (lastOf.get(sender) ?? Promise.resolve())
    .then(() => post({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [raw] }))
    .then((res) => {
      if (res.error) refused.set(res.error.message, (refused.get(res.error.message) ?? 0) + 1);
      else returnedAt.set(res.result, performance.now());
    });
  lastOf.set(sender, send);
  sends.push(send);
}
await Promise.all(sends);
const deadline = performance.now() + 10_000;
const sentSeconds = (performance.now() - t0) / 1000;
while (seenAt.size < returnedAt.size && performance.now() < deadline)
  await new Promise((r) => setTimeout(r, 50));
if (seenAt.size < returnedAt.size)
  console.log(
    'not pre-confirmed after 10 s; txpool_status:',
    (await post({ jsonrpc: '2.0', id: 0, method: 'txpool_status', params: [] })).result,
  );
// One more block of flashblocks for the interval figures.
await new Promise((r) => setTimeout(r, 2200));

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const lat = [];
for (const [h, t] of returnedAt) if (seenAt.has(h)) lat.push(Math.max(0, seenAt.get(h) - t));
lat.sort((a, b) => a - b);
// Intervals between consecutive flashblocks of a block (index n-1 -> n, n >= 1).
const gaps = [];
for (let i = 1; i < flashblocks.length; i++) {
  const a = flashblocks[i - 1];
  const b = flashblocks[i];
  if (b.block === a.block && b.index === a.index + 1) gaps.push(b.at - a.at);
}
const dev = gaps.map((g) => Math.abs(g - INTERVAL)).sort((a, b) => a - b);
gaps.sort((a, b) => a - b);
const perBlock = new Map();
for (const f of flashblocks) perBlock.set(f.block, Math.max(perBlock.get(f.block) ?? 0, f.index));
const full = [...perBlock.values()].slice(1, -1); // whole blocks only
if (refused.size) console.log('refused:', Object.fromEntries(refused));
console.log(
  `${N} transfers offered at ${RATE}/s (all sent in ${sentSeconds.toFixed(1)} s): pre-confirmed ${lat.length}/${returnedAt.size} accepted; submit-to-pending p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms, max ${lat[lat.length - 1].toFixed(1)} ms`,
);
console.log(
  `flashblock interval p50 ${pct(gaps, 50).toFixed(1)} ms, p99 ${pct(gaps, 99).toFixed(1)} ms; deviation from ${INTERVAL} ms p50 ${pct(dev, 50).toFixed(1)}, p99 ${pct(dev, 99).toFixed(1)} ms`,
);
console.log(
  `flashblocks per block (highest index; index 0 opens the block): ${full.length ? `${Math.min(...full)}..${Math.max(...full)}` : 'n/a'} over ${full.length} whole blocks`,
);
clearInterval(rssTimer);
const afterFirstMinute = rss.filter((r) => r.t >= 60);
const perMinute = rss.filter((r, i) => i === 0 || Math.floor(r.t / 60) > Math.floor(rss[i - 1].t / 60));
if (perMinute.length > 2)
  console.log(`node RSS per minute: ${perMinute.map((r) => r.mb.toFixed(0)).join(', ')} MB`);
console.log(
  `node RSS: idle ${rss[0].mb.toFixed(0)} MB, max ${Math.max(...rss.map((r) => r.mb)).toFixed(0)} MB, end ${rss[rss.length - 1].mb.toFixed(0)} MB${afterFirstMinute.length > 1 ? `; after the first minute ${afterFirstMinute[0].mb.toFixed(0)} -> ${afterFirstMinute[afterFirstMinute.length - 1].mb.toFixed(0)} MB` : ''}`,
);
// The node's own view (GET /metrics): mean build and seal times.
const metrics = await (await fetch(`${info.url}/metrics`)).text();
const metric = (name) => Number(metrics.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1]);
const mean = (h) => ((metric(`${h}_sum`) / metric(`${h}_count`)) * 1000).toFixed(1);
console.log(
  `node: flashblock build mean ${mean('wharf_flashblock_build_seconds')} ms, seal mean ${mean('wharf_seal_seconds')} ms, pool-to-pending mean ${mean('wharf_submit_to_pending_seconds')} ms`,
);
ws.close();
child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
fs.rmSync(dataDir, { recursive: true, force: true });
