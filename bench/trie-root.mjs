#!/usr/bin/env node
/**
 * The builder's state root per flashblock, alone: a trie of `--accounts` accounts in memory,
 * then `--rounds` rounds as a flashblock at 1,000 transfers/s changes it (100 senders' leaves
 * and 200 fresh recipients), each round's `update` and `root()` timed. No disk, no worker: what
 * the main thread spends hashing a flashblock's changes as the state grows (issue 33, item 3).
 *
 *   npm run build && node --max-old-space-size=4096 bench/trie-root.mjs --accounts 1200000 --rounds 200
 */
import { parseArgs } from 'node:util';
import { initKeccak, keccak256 } from '../packages/chain/dist/crypto/keccak.js';
import { MerkleTrie } from '../packages/chain/dist/trie/merkleTrie.js';
import { percentile } from './lib/stats.mjs';

const { values: args } = parseArgs({
  options: {
    accounts: { type: 'string', default: '1200000' },
    rounds: { type: 'string', default: '200' },
  },
});
const accounts = Number(args.accounts);
const rounds = Number(args.rounds);

await initKeccak();
/** Account i's trie key, as the node keys it: keccak of its address. */
const key = (i) => {
  const a = new Uint8Array(20);
  new DataView(a.buffer).setUint32(16, i);
  return keccak256(a);
};
// An account's RLP is ~70 bytes (nonce, balance, the empty storage root and code hash).
const account = (tag) => new Uint8Array(70).fill(tag);

const trie = MerkleTrie.empty();
const started = performance.now();
for (let i = 0; i < accounts; i += 20_000) {
  const batch = [];
  for (let j = i; j < Math.min(accounts, i + 20_000); j++) batch.push([key(j), account(1)]);
  await trie.update(batch);
  trie.root();
}
console.log(
  `${accounts.toLocaleString('en-US')} accounts in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

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
    updateMs.push(t1 - t0);
    rootMs.push(t2 - t1);
  }
}
const f = (xs) => {
  const sorted = xs.toSorted((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms`;
};
console.log(`per round of 300 changed accounts: update ${f(updateMs)}; root() ${f(rootMs)}`);
