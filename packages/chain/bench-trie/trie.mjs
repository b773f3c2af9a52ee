// Micro-benchmark: 2,000 account updates + state root in a 20,000-account secure trie,
// wharf's MerkleTrie vs @ethereumjs/mpt 10 (with its default keccak, and with hash-wasm's).
//
//   npx tsc -b packages/chain && node packages/chain/bench-trie/trie.mjs [accounts] [updates] [runs]
//   WHARF_ONLY=1 node packages/chain/bench-trie/trie.mjs      # skip @ethereumjs/mpt (faster)
//
// Every variant starts from the same committed 20,000-account state and applies the same
// 2,000 changes (90% existing accounts rewritten, 10% new) to a fresh view of it. Variants run
// interleaved, one run of each per round, so that load from other processes on a shared
// machine falls on all of them alike. Printed: wall-clock median and best, and the median CPU
// time of the process (all threads: GC, LevelDB's pool), which is less sensitive to that load.
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMPT } from '@ethereumjs/mpt';
import { RLP } from '@ethereumjs/rlp';
import { ClassicLevel } from 'classic-level';
import { initKeccak, keccak256 } from '../dist/crypto/keccak.js';
import { MemoryNodeStore, MerkleTrie } from '../dist/trie/index.js';

const ACCOUNTS = Number(process.argv[2] ?? 20_000);
const UPDATES = Number(process.argv[3] ?? 2_000);
const RUNS = Number(process.argv[4] ?? 9);
const WHARF_ONLY = Boolean(process.env.WHARF_ONLY);

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
const hex = (b) => Buffer.from(b).toString('hex');

// ---- the base state, committed ------------------------------------------------------------
const store = new MemoryNodeStore();
const base = MerkleTrie.empty(store);
let t0 = performance.now();
await base.update(initial.map(([a, v]) => [keccak256(a), v]));
const { root: baseRoot, nodes } = base.commit();
store.putAll(nodes);
const buildMs = performance.now() - t0;

// the same nodes in LevelDB, as storage/ keeps them
const dir = mkdtempSync(join(tmpdir(), 'wharf-bench-trie-'));
const level = new ClassicLevel(dir, { keyEncoding: 'view', valueEncoding: 'view' });
await level.batch(nodes.map(([hash, encoded]) => ({ type: 'put', key: hash, value: encoded })));
const levelGet = { get: (hash) => level.get(hash) };
const levelGetMany = { get: (hash) => level.get(hash), getMany: (hashes) => level.getMany(hashes) };

// ---- variants -----------------------------------------------------------------------------
let committed = 0;
const variants = [
  [
    'wharf MerkleTrie, nodes in memory',
    'kept from the last commit (copy())',
    async () => {
      const t = base.copy();
      await t.update(hashedChanges);
      return t.root();
    },
  ],
  [
    'wharf MerkleTrie, + commit()',
    'the nodes to persist',
    async () => {
      const t = base.copy();
      await t.update(hashedChanges);
      const c = t.commit();
      committed = c.nodes.length;
      return c.root;
    },
  ],
  [
    'wharf MerkleTrie, opened at the root',
    'MemoryNodeStore: decodes the touched nodes',
    async () => {
      const t = MerkleTrie.at(baseRoot, store);
      await t.update(hashedChanges);
      return t.root();
    },
  ],
  [
    'wharf MerkleTrie, opened from LevelDB',
    'classic-level, getMany',
    async () => {
      const t = MerkleTrie.at(baseRoot, levelGetMany);
      await t.update(hashedChanges);
      return t.root();
    },
  ],
  [
    'wharf MerkleTrie, opened from LevelDB',
    'classic-level, get only',
    async () => {
      const t = MerkleTrie.at(baseRoot, levelGet);
      await t.update(hashedChanges);
      return t.root();
    },
  ],
];

let refBuildMs = 0;
if (!WHARF_ONLY) {
  const wasmKeccak = (data) => keccak256(data);
  const ref = await createMPT({ useKeyHashing: true, useKeyHashingFunction: wasmKeccak });
  t0 = performance.now();
  for (const [a, v] of initial) await ref.put(a, v);
  refBuildMs = performance.now() - t0;
  if (hex(ref.root()) !== hex(baseRoot)) throw new Error('base roots differ');
  const db = ref.database().db;
  const mpt = (opts) => async () => {
    const t = await createMPT({ ...opts, useKeyHashing: true, db, root: baseRoot });
    for (const [a, v] of changes) await t.put(a, v);
    return t.root();
  };
  variants.push(['@ethereumjs/mpt', 'default keccak (@noble/hashes)', mpt({})]);
  variants.push(['@ethereumjs/mpt', 'hash-wasm keccak', mpt({ useKeyHashingFunction: wasmKeccak })]);
}

// ---- interleaved runs ---------------------------------------------------------------------
const times = variants.map(() => []);
const cpu = variants.map(() => []);
let expected;
for (let round = -1; round < RUNS; round++) {
  for (let v = 0; v < variants.length; v++) {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    const root = await variants[v][2]();
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpuStart);
    if (round >= 0) {
      // round -1 warms up the JIT
      times[v].push(ms);
      cpu[v].push((used.user + used.system) / 1000);
    }
    expected ??= hex(root);
    if (hex(root) !== expected) throw new Error(`${variants[v][0]}: root differs`);
  }
}
await level.close();
rmSync(dir, { recursive: true, force: true });

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const f = (ms) => `${ms.toFixed(1)} ms`.padStart(10);
console.log(
  `${UPDATES} account updates + root in a ${ACCOUNTS}-account trie: median and best of ${RUNS} runs`,
);
console.log(
  `  ${'variant'.padEnd(40)} ${'median'.padStart(10)} ${'best'.padStart(10)} ${'CPU'.padStart(10)}`,
);
for (let v = 0; v < variants.length; v++) {
  const [name, note] = variants[v];
  console.log(
    `  ${name.padEnd(40)} ${f(median(times[v]))} ${f(Math.min(...times[v]))} ${f(median(cpu[v]))}  ${note}`,
  );
}
console.log(
  '  (wall-clock median and best; CPU: median process CPU time, all threads, which other load inflates less)',
);
console.log(`  roots identical; commit() lists ${committed} nodes`);
if (!WHARF_ONLY) {
  const m = (i) => median(cpu[i]);
  const [warmI, coldI, noble, wasm] = [0, 3, variants.length - 2, variants.length - 1];
  console.log(
    `  speed-up (CPU medians), in memory: ${(m(noble) / m(warmI)).toFixed(0)}x vs @ethereumjs/mpt, ` +
      `${(m(wasm) / m(warmI)).toFixed(0)}x vs mpt + hash-wasm; from LevelDB: ` +
      `${(m(noble) / m(coldI)).toFixed(0)}x / ${(m(wasm) / m(coldI)).toFixed(0)}x`,
  );
}
console.log(
  `  building the ${ACCOUNTS}-account trie: wharf ${f(buildMs).trim()}` +
    (WHARF_ONLY ? '' : `, @ethereumjs/mpt + hash-wasm ${f(refBuildMs).trim()}`),
);
console.log(`  load average at the end: ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`);
