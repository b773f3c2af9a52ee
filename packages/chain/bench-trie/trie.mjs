// Micro-benchmark: 2,000 account updates + state root in a 20,000-account secure trie,
// wharf's MerkleTrie vs @ethereumjs/mpt 10 (with its default keccak, and with hash-wasm's).
//
//   npx tsc -b packages/chain && node packages/chain/bench-trie/trie.mjs [accounts] [updates] [runs]
//
// Both tries start from the same committed 20,000-account state; each run applies the same
// 2,000 changes (1,800 existing accounts rewritten, 200 new) to a fresh view of it.
import { createMPT } from '@ethereumjs/mpt';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { RLP } from '@ethereumjs/rlp';
import { initKeccak, keccak256 } from '../dist/crypto/keccak.js';
import { MemoryNodeStore, MerkleTrie } from '../dist/trie/index.js';

const ACCOUNTS = Number(process.argv[2] ?? 20_000);
const UPDATES = Number(process.argv[3] ?? 2_000);
const RUNS = Number(process.argv[4] ?? 7);

await initKeccak();

// mulberry32: a deterministic 32-bit generator, so every run uses the same workload
let seed = 12345;
function rand() {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}
function bytes(n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rand() & 0xff;
  return b;
}
const EMPTY_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex');
const EMPTY_CODE = keccak256(new Uint8Array(0));
function account(nonce, balance) {
  return RLP.encode([nonce, balance, EMPTY_ROOT, EMPTY_CODE]);
}

const addresses = Array.from({ length: ACCOUNTS }, () => bytes(20));
const initial = addresses.map((a, i) => [a, account(i % 7, BigInt(rand()) * 10n ** 12n)]);
const changes = [];
for (let i = 0; i < UPDATES; i++) {
  const a = i < UPDATES * 0.9 ? addresses[rand() % ACCOUNTS] : bytes(20);
  changes.push([a, account(1 + (i % 50), BigInt(rand()) * 10n ** 9n)]);
}
const hashedChanges = changes.map(([a, v]) => [keccak256(a), v]);

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
async function time(fn) {
  const out = [];
  let result;
  for (let i = 0; i < 2; i++) await fn(); // warm-up: let the JIT settle
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    result = await fn();
    out.push(performance.now() - t0);
  }
  return { ms: median(out), min: Math.min(...out), result };
}
const hex = (b) => Buffer.from(b).toString('hex');

// ---- wharf MerkleTrie ----------------------------------------------------------------------
const store = new MemoryNodeStore();
const base = MerkleTrie.empty(store);
let t0 = performance.now();
await base.update(initial.map(([a, v]) => [keccak256(a), v]));
const { root: baseRoot, nodes } = base.commit();
store.putAll(nodes);
const buildMs = performance.now() - t0;

const warm = await time(async () => {
  const t = base.copy();
  await t.update(hashedChanges);
  return t.root();
});
const cold = await time(async () => {
  const t = MerkleTrie.at(baseRoot, store);
  await t.update(hashedChanges);
  return t.root();
});
const withCommit = await time(async () => {
  const t = base.copy();
  await t.update(hashedChanges);
  return t.commit().nodes.length;
});

// the same state in LevelDB (as storage/ keeps it): reopen at the root and apply the batch
const dir = mkdtempSync(join(tmpdir(), 'wharf-bench-trie-'));
const level = new ClassicLevel(dir, { keyEncoding: 'view', valueEncoding: 'view' });
await level.batch(nodes.map(([hash, encoded]) => ({ type: 'put', key: hash, value: encoded })));
const levelGet = { get: (hash) => level.get(hash) };
const levelGetMany = { get: (hash) => level.get(hash), getMany: (hashes) => level.getMany(hashes) };
const fromLevelGet = await time(async () => {
  const t = MerkleTrie.at(baseRoot, levelGet);
  await t.update(hashedChanges);
  return t.root();
});
const fromLevel = await time(async () => {
  const t = MerkleTrie.at(baseRoot, levelGetMany);
  await t.update(hashedChanges);
  return t.root();
});
await level.close();
rmSync(dir, { recursive: true, force: true });
for (const r of [fromLevel.result, fromLevelGet.result]) {
  if (hex(r) !== hex(warm.result)) throw new Error('roots differ');
}

const f = (ms) => `${ms.toFixed(1)} ms`;
const g = (r) => `${f(r.ms)} (best ${f(r.min)})`;
if (process.env.WHARF_ONLY) {
  console.log(
    `wharf: memory ${g(warm)}, +commit ${g(withCommit)}, reopened ${g(cold)}, from LevelDB ${g(fromLevel)} (get only ${g(fromLevelGet)}), build ${f(buildMs)}`,
  );
  process.exit(0);
}

// ---- @ethereumjs/mpt --------------------------------------------------------------------------
const wasmKeccak = (data) => keccak256(data);
const ref = await createMPT({ useKeyHashing: true, useKeyHashingFunction: wasmKeccak });
t0 = performance.now();
for (const [a, v] of initial) await ref.put(a, v);
const refBuildMs = performance.now() - t0;
if (hex(ref.root()) !== hex(baseRoot)) throw new Error('base roots differ');
const db = ref.database().db;

async function runMpt(opts) {
  return time(async () => {
    const t = await createMPT({ ...opts, useKeyHashing: true, db, root: baseRoot });
    for (const [a, v] of changes) await t.put(a, v);
    return t.root();
  });
}
const mptNoble = await runMpt({});
const mptWasm = await runMpt({ useKeyHashingFunction: wasmKeccak });
for (const r of [cold.result, mptNoble.result, mptWasm.result]) {
  if (hex(r) !== hex(warm.result)) throw new Error('roots differ');
}

console.log(
  `${UPDATES} account updates + root in a ${ACCOUNTS}-account trie (median of ${RUNS} runs, and best; roots identical)`,
);
console.log(`  wharf MerkleTrie, nodes in memory        ${g(warm)}`);
console.log(`  wharf MerkleTrie, + commit()             ${g(withCommit)}  (${withCommit.result} nodes)`);
console.log(`  wharf MerkleTrie, reopened from store    ${g(cold)}  (decodes the touched nodes)`);
console.log(`  wharf MerkleTrie, reopened from LevelDB  ${g(fromLevel)}  (classic-level getMany)`);
console.log(`  wharf MerkleTrie, same, get only         ${g(fromLevelGet)}  (one level.get per node)`);
console.log(`  @ethereumjs/mpt, default keccak (noble)  ${g(mptNoble)}`);
console.log(`  @ethereumjs/mpt, hash-wasm keccak        ${g(mptWasm)}`);
console.log(
  `  speed-up: ${(mptNoble.ms / warm.ms).toFixed(1)}x vs default mpt, ${(mptWasm.ms / warm.ms).toFixed(1)}x vs mpt+wasm` +
    ` (cold: ${(mptNoble.ms / cold.ms).toFixed(1)}x / ${(mptWasm.ms / cold.ms).toFixed(1)}x)`,
);
console.log(`  build of the ${ACCOUNTS}-account trie: wharf ${f(buildMs)}, mpt+wasm ${f(refBuildMs)}`);
console.log(`  load average during the run: ${loadavg()[0].toFixed(1)} (on ${availableParallelism()} cores)`);
