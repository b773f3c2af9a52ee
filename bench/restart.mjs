#!/usr/bin/env node
/**
 * A start on a data directory a run left behind (`bench/preconf.mjs --keep-data-dir`, the node
 * killed -9 as its load ended): how long the node takes to answer and to seal its next block, and
 * what it read to get there: the disk layer's trie nodes made from its leaves (decisions 0650,
 * 0660), the leaves read, and the CPU it used. The directory is copied first and the copy
 * started, so one kept directory measures any number of builds.
 *
 *   npm run build && node bench/restart.mjs --data-dir /tmp/wharf-bench-XXXXXX [--port 18646]
 *
 * No peer runs this side by side: Anvil keeps its state in memory (`--state` dumps it whole).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuTimeUs, rpc as rpcAt } from './lib/load.mjs';
import { fetchMetrics, metricValue } from './lib/metrics.mjs';
import { wharfNode } from './lib/peers.mjs';

const { values: args } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    port: { type: 'string', default: '18646' },
    // The dev accounts the kept run's node had (bench/preconf.mjs: --senders, default 100).
    accounts: { type: 'string', default: '100' },
  },
});
if (!args['data-dir']) {
  console.error('usage: node bench/restart.mjs --data-dir DIR (kept by bench/preconf.mjs --keep-data-dir)');
  process.exit(2);
}

const now = () => performance.now();
const copy = fs.mkdtempSync(path.join(path.dirname(path.resolve(args['data-dir'])), 'wharf-restart-'));
fs.cpSync(args['data-dir'], copy, { recursive: true });
const size = (dir) =>
  fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + fs.statSync(path.join(e.parentPath, e.name)).size, 0);

const node = wharfNode({
  port: Number(args.port),
  blockTime: 2,
  extra: ['--accounts', args.accounts],
  reuse: copy,
});
const url = `http://127.0.0.1:${args.port}`;
const rpc = (method) => rpcAt(url, method);
// A counter the node has not shown yet (nothing counted so far) is 0.
const counted = (text, name) => metricValue(text, name) || 0;

try {
  const start = now();
  let head;
  while (head === undefined) {
    if (node.child.exitCode !== null) throw new Error(`the node exited (${node.child.exitCode})`);
    head = await rpc('eth_blockNumber').catch(() => undefined);
    if (head === undefined) await new Promise((r) => setTimeout(r, 50));
    if (now() - start > 600_000) throw new Error('the node did not answer within 10 minutes');
  }
  const answered = now() - start;
  const cpuAtAnswer = (cpuTimeUs(node.child.pid) ?? Number.NaN) / 1e6;
  const atAnswer = await fetchMetrics(url);
  let next = head;
  while (next === head) {
    await new Promise((r) => setTimeout(r, 50));
    next = await rpc('eth_blockNumber');
  }
  const sealed = now() - start;
  const atSeal = await fetchMetrics(url);
  const f = (x) => (Number.isFinite(x) ? x.toLocaleString('en-US') : 'n/a');
  console.log(
    `data dir ${args['data-dir']}: ${(size(copy) / 1024 / 1024).toFixed(1)} MB, head ${BigInt(head)}`,
  );
  console.log(
    `answered after ${(answered / 1000).toFixed(2)} s (${Number.isFinite(cpuAtAnswer) ? `${cpuAtAnswer.toFixed(2)} s` : 'n/a'} of CPU); next block sealed after ${(sealed / 1000).toFixed(2)} s`,
  );
  for (const [what, text] of [
    ['by the answer', atAnswer],
    ['by the next block', atSeal],
  ])
    console.log(
      `${what}: ${f(counted(text, 'wharf_state_nodes_made_total'))} trie nodes made from ${f(counted(text, 'wharf_state_leaves_read_total'))} leaves`,
    );
} finally {
  await node.stop();
  fs.rmSync(copy, { recursive: true, force: true });
}
