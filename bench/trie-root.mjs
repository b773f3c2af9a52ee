#!/usr/bin/env node
/**
 * The builder's state root per flashblock, alone: a trie of `--accounts` accounts in memory,
 * then `--rounds` rounds as a flashblock at 1,000 transfers/s changes it (100 senders' leaves
 * and 200 fresh recipients), each round's `update` and `root()` timed. No disk, no worker: what
 * the main thread spends hashing a flashblock's changes as the state grows (issue 33, item 3).
 *
 * `--evict-every N`: as the node does, the trie is committed to a store in memory every 10
 * rounds (a block) and forgets what is below depth 3 every N rounds, so that rounds read nodes
 * back and decode them (the node: every 4 blocks, 40). Prints the garbage collector's time too.
 *
 *   npm run build && node --max-old-space-size=4096 bench/trie-root.mjs --accounts 1200000 --rounds 200 [--evict-every 40]
 */
import { parseArgs } from 'node:util';
import { GCProfiler } from 'node:v8';
import { initKeccak, keccak256 } from '../packages/chain/dist/crypto/keccak.js';
import { MemoryNodeStore } from '../packages/chain/dist/trie/memoryNodeStore.js';
import { MerkleTrie } from '../packages/chain/dist/trie/merkleTrie.js';
import { percentile } from './lib/stats.mjs';

const { values: args } = parseArgs({
  options: {
    accounts: { type: 'string', default: '1200000' },
    rounds: { type: 'string', default: '200' },
    'evict-every': { type: 'string', default: '0' },
  },
});
const accounts = Number(args.accounts);
const rounds = Number(args.rounds);
const evictEvery = Number(args['evict-every']);
/** Rounds per block: the node seals (commits) after its tenth flashblock. */
const BLOCK_ROUNDS = 10;

await initKeccak();
/** Account i's trie key, as the node keys it: keccak of its address. */
const key = (i) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  return keccak256(a);
};
// An account's RLP is ~70 bytes (nonce, balance, the empty storage root and code hash).
const account = (tag) => new Uint8Array(70).fill(tag);

const store = evictEvery ? new MemoryNodeStore() : undefined;
const trie = MerkleTrie.empty(store);
const started = performance.now();
for (let i = 0; i < accounts; i += 20_000) {
  const batch = [];
  for (let j = i; j < Math.min(accounts, i + 20_000); j++) batch.push([key(j), account(1)]);
  await trie.update(batch);
  trie.root();
}
if (store) {
  store.putAll(trie.commit().nodes);
  trie.evict(3);
}
console.log(
  `${accounts.toLocaleString('en-US')} accounts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

// The garbage collector's pauses while the rounds are measured.
const gc = new GCProfiler();
let measuring = false;
let measuredFrom = 0;

const updateMs = [];
const rootMs = [];
let next = accounts;
for (let r = 0; r < rounds; r++) {
  const batch = [];
  for (let s = 0; s < 100; s++) batch.push([key(s * 7919), account(r & 0xff)]);
  for (let j = 0; j < 200; j++) batch.push([key(next++), account(1)]);
  const t0 = performance.now();
  await trie.update(batch);
  const t1 = performance.now();
  trie.root();
  const t2 = performance.now();
  // The first rounds warm the JIT up.
  if (r >= rounds / 10) {
    if (!measuring) {
      measuring = true;
      measuredFrom = t0;
      gc.start();
    }
    updateMs.push(t1 - t0);
    rootMs.push(t2 - t1);
  }
  if (store && (r + 1) % BLOCK_ROUNDS === 0) store.putAll(trie.commit().nodes);
  if (store && (r + 1) % evictEvery === 0) trie.evict(3);
}
const measuredMs = performance.now() - measuredFrom;
const pauses = gc.stop().statistics;
const gcMs = pauses.reduce((a, p) => a + p.cost, 0) / 1000;
const counts = new Map();
for (const p of pauses) counts.set(p.gcType, (counts.get(p.gcType) ?? 0) + 1);
const kinds = [...counts].map(([k, n]) => `${k} ${n}`).join(', ');
const f = (xs) => {
  const sorted = xs.toSorted((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`;
};
const sum = (xs) => xs.reduce((a, b) => a + b, 0);
console.log(
  `per round of 300 changed accounts: update ${f(updateMs)}, mean ${(sum(updateMs) / updateMs.length).toFixed(2)} ms; root() ${f(rootMs)}, mean ${(sum(rootMs) / rootMs.length).toFixed(2)} ms`,
);
console.log(
  `garbage collector: ${gcMs.toFixed(0)} ms of the measured ${measuredMs.toFixed(0)} ms (${((100 * gcMs) / measuredMs).toFixed(1)}%; ${kinds}), heap used at the end ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MB`,
);
