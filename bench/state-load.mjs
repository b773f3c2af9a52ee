#!/usr/bin/env node
/**
 * Loading a state file of 10,000 accounts (issue 32: "loads back in under 1 s with identical
 * roots"), wharf next to Anvil when Anvil is installed (an optional dependency of the bench).
 *
 *   npm run build && node bench/state-load.mjs [--accounts 10000] [--runs 3]
 *
 * For each node: the time of one `anvil_loadState` request into a fresh automine node (the call
 * returns once the state is sealed in a block), and the start-up of a node with `--load-state
 * FILE` until it answers `eth_blockNumber`, next to the start-up of the same node without it.
 * Prints the state root after the load (wharf's must equal the dumping node's; Anvil's roots
 * are its own).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { anvilNode, installedPeers, wharfNode } from './lib/peers.mjs';

const { values } = parseArgs({
  options: { accounts: { type: 'string', default: '10000' }, runs: { type: 'string', default: '3' } },
});
const ACCOUNTS = Number(values.accounts);
const RUNS = Number(values.runs);

/** The test's world: every tenth account holds code and two storage slots. */
function world(n) {
  const accounts = {};
  for (let i = 1; i <= n; i++) {
    const address = `0x${(0x5000000 + i).toString(16).padStart(40, '0')}`;
    accounts[address] =
      i % 10 === 0
        ? {
            nonce: 1,
            balance: `0x${(BigInt(i) * 10n ** 15n).toString(16)}`,
            code: '0x6001600055',
            storage: { '0x0': `0x${i.toString(16)}`, '0x1': '0x2a' },
          }
        : { nonce: i % 7, balance: `0x${(BigInt(i) * 10n ** 12n).toString(16)}`, code: '0x', storage: {} };
  }
  // Anvil refuses a file without these keys (null and empty are fine).
  return { block: null, accounts, best_block_number: null, blocks: [], transactions: [] };
}

async function rpc(url, method, params = []) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const j = await r.json();
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

let port = 19_000 + Math.floor(Math.random() * 20_000);
const start = {
  wharf: (extra) => wharfNode({ port: port++, blockTime: 0, extra: ['--ephemeral', ...extra] }),
  anvil: (extra) => anvilNode({ port: port++, blockTime: 0, extra }),
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-load-'));
const file = path.join(dir, 'state.json');
fs.writeFileSync(file, JSON.stringify(world(ACCOUNTS)));
// anvil_loadState's parameter as anvil_dumpState gives it: hex of the gzipped JSON.
const gzipped = `0x${gzipSync(fs.readFileSync(file)).toString('hex')}`;
const peers = installedPeers(['wharf', 'anvil']);
const rows = [];

for (const peer of peers) {
  const rpcMs = [];
  const startWith = [];
  const startWithout = [];
  let root;
  for (let run = 0; run < RUNS; run++) {
    const node = start[peer]([]);
    await node.ready();
    const t0 = performance.now();
    await rpc(node.url, 'anvil_loadState', [gzipped]);
    rpcMs.push(performance.now() - t0);
    root = (await rpc(node.url, 'eth_getBlockByNumber', ['latest', false])).stateRoot;
    await node.stop();
    for (const [extra, into] of [
      [[], startWithout],
      [['--load-state', file], startWith],
    ]) {
      const t1 = performance.now();
      const n = start[peer](extra);
      await n.ready();
      into.push(performance.now() - t1);
      await n.stop();
    }
  }
  rows.push({
    peer,
    rpc: median(rpcMs),
    startWith: median(startWith),
    startWithout: median(startWithout),
    root,
  });
}

console.log(
  `state file: ${ACCOUNTS} accounts (${(fs.statSync(file).size / 1024).toFixed(0)} KiB JSON), median of ${RUNS} runs`,
);
console.log(
  '| node | anvil_loadState (RPC) | start with --load-state | start without | state root after load |',
);
console.log('|---|---|---|---|---|');
for (const r of rows)
  console.log(
    `| ${r.peer} | ${r.rpc.toFixed(0)} ms | ${r.startWith.toFixed(0)} ms | ${r.startWithout.toFixed(0)} ms | ${r.root.slice(0, 18)}… |`,
  );
fs.rmSync(dir, { recursive: true, force: true });
