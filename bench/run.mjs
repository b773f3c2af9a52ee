#!/usr/bin/env node
/**
 * `npm run bench`: every benchmark in turn. Each prints its figures and ratios against the peers
 * it runs side by side, and writes JSON to bench/results/. Run one with
 * `node bench/chain.mjs reads` or `node bench/notifications.mjs`.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const suites = process.argv.slice(2).length ? process.argv.slice(2) : ['chain.mjs', 'notifications.mjs'];
let failed = 0;
for (const suite of suites) {
  console.log(`\n=== ${suite}`);
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, suite)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
