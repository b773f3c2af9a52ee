#!/usr/bin/env node
/**
 * Chain node benchmarks, wharf side by side with Anvil and Hardhat 2 on this machine:
 *   reads    eth_getBalance and eth_getStorageAt at latest, 64 connections: requests/s, p99
 *   block    eth_getBlockByNumber(n, true) on a 200-transaction block: p50, p99
 *   mine     2,000 signed transfers with 1 s blocks: accepted/s and mined/s
 *   import   time to import the conformance chain (wharf only; the peers cannot import geth chains)
 * Usage: node bench/chain.mjs [reads|block|mine|import ...] [--peers wharf,anvil,hardhat] [--seconds 5]
 * Needs `npm run build` first (wharf runs from packages/cli/dist).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { getContractAddress } from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { cpuTimeUs, loadTest, rpc, table } from './lib/load.mjs';
import { MNEMONIC, anvilNode, hardhatNode, installedPeers, wharfNode } from './lib/peers.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    peers: { type: 'string', default: 'wharf,anvil,hardhat' },
    seconds: { type: 'string', default: '5' },
  },
});
const scenarios = positionals.length ? positionals : ['reads', 'block', 'mine', 'import'];
const peers = installedPeers(values.peers.split(','));
const seconds = Number(values.seconds);
const starters = { wharf: wharfNode, anvil: anvilNode, hardhat: hardhatNode };
// WHARF_BENCH_PORT: the first port to start nodes on (another bench on the same machine uses 18545...).
let nextPort = Number(process.env.WHARF_BENCH_PORT) || 18545;

async function withNode(peer, blockTime, fn) {
  const node = starters[peer]({ port: nextPort++, blockTime });
  try {
    await node.ready();
    return await fn(node.url, node);
  } finally {
    await node.stop();
  }
}

const dev = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
const gwei = 10n ** 9n;

async function signTransfers(url, senders, perSender, to) {
  const chainId = Number(await rpc(url, 'eth_chainId'));
  const raws = [];
  for (const account of senders) {
    const nonce = Number(await rpc(url, 'eth_getTransactionCount', [account.address, 'pending']));
    for (let i = 0; i < perSender; i++) {
      raws.push(
        await account.signTransaction({
          chainId,
          type: 'eip1559',
          to: to ?? dev[9].address,
          value: 1n,
          nonce: nonce + i,
          gas: 21_000n,
          maxFeePerGas: 100n * gwei,
          maxPriorityFeePerGas: gwei,
        }),
      );
    }
  }
  return raws;
}

/**
 * JSON-RPC batches of `batch` transactions over `concurrency` connections, in order within each
 * connection's share: the client stays cheaper than any node it measures (one request per
 * transaction from this process tops out near 1,000-1,500/s, whoever answers).
 */
async function sendBatches(url, raws, { batch = 100, concurrency = 4 } = {}) {
  let next = 0;
  let refused = 0;
  let firstError;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < raws.length) {
        const chunk = raws.slice(next, next + batch);
        next += chunk.length;
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(
            chunk.map((raw, i) => ({
              jsonrpc: '2.0',
              id: i,
              method: 'eth_sendRawTransaction',
              params: [raw],
            })),
          ),
        }).then((r) => r.json());
        for (const r of Array.isArray(res) ? res : [res])
          if (r.error) {
            refused++;
            firstError ??= r.error.message;
          }
      }
    }),
  );
  return { refused, firstError };
}

async function sendAll(url, raws, concurrency = 16) {
  let i = 0;
  let refused = 0;
  let firstError;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < raws.length) {
        const raw = raws[i++];
        try {
          await rpc(url, 'eth_sendRawTransaction', [raw]);
        } catch (e) {
          refused++;
          firstError ??= e.message;
        }
      }
    }),
  );
  return { refused, firstError };
}

async function mineOne(url, peer) {
  if (peer === 'wharf') {
    const start = BigInt(await rpc(url, 'eth_blockNumber'));
    while (BigInt(await rpc(url, 'eth_blockNumber')) === start) await new Promise((r) => setTimeout(r, 50));
  } else await rpc(url, 'evm_mine');
}

const results = {};

/** How many different addresses (and storage slots) the reads go over. */
const READ_SPREAD = 1000;

/**
 * The slots are spread over contracts of SLOTS_PER_CONTRACT each: one transaction may not use
 * more than 2^24 gas (EIP-7825, Anvil), a set slot costs 22,100.
 */
const SLOTS_PER_CONTRACT = 250;

/**
 * Init code that writes slot i = i + 1 for i in 0..SLOTS_PER_CONTRACT-1 and leaves no code:
 * PUSH1 0, loop: DUP1 PUSH1 1 ADD DUP2 SSTORE PUSH1 1 ADD DUP1 PUSH2 n GT PUSH1 2 JUMPI, STOP.
 */
const FILL_SLOTS = `0x60005b8060010181556001018061${SLOTS_PER_CONTRACT.toString(16).padStart(4, '0')}1160025700`;

/**
 * The state the reads go over, the same on every peer: READ_SPREAD funded addresses (transfers
 * from the 10 dev accounts) and READ_SPREAD storage slots set over a few contracts.
 */
async function readState(url) {
  const chainId = Number(await rpc(url, 'eth_chainId'));
  const targets = Array.from(
    { length: READ_SPREAD },
    (_, i) => `0x${(0xbead0000n + BigInt(i)).toString(16).padStart(40, '0')}`,
  );
  const nonces = await Promise.all(
    dev.map(async (a) => Number(await rpc(url, 'eth_getTransactionCount', [a.address, 'pending']))),
  );
  const raws = await Promise.all(
    targets.map((to, i) => {
      const from = i % dev.length;
      return dev[from].signTransaction({
        chainId,
        type: 'eip1559',
        to,
        value: BigInt(i + 1),
        nonce: nonces[from]++,
        gas: 21_000n,
        maxFeePerGas: 100n * gwei,
        maxPriorityFeePerGas: gwei,
      });
    }),
  );
  const contracts = [];
  for (let k = 0; k < READ_SPREAD / SLOTS_PER_CONTRACT; k++) {
    const nonce = nonces[0]++;
    contracts.push(getContractAddress({ from: dev[0].address, nonce: BigInt(nonce) }));
    raws.push(
      await dev[0].signTransaction({
        chainId,
        type: 'eip1559',
        data: FILL_SLOTS,
        nonce,
        gas: 6_000_000n,
        maxFeePerGas: 100n * gwei,
        maxPriorityFeePerGas: gwei,
      }),
    );
  }
  const { refused, firstError } = await sendBatches(url, raws);
  if (refused) throw new Error(`reads: ${refused} set-up transactions refused: ${firstError}`);
  const last = `0x${(SLOTS_PER_CONTRACT - 1).toString(16)}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const balance = BigInt(await rpc(url, 'eth_getBalance', [targets.at(-1), 'latest']));
    const slot = BigInt(await rpc(url, 'eth_getStorageAt', [contracts.at(-1), last, 'latest']));
    if (balance === BigInt(READ_SPREAD) && slot === BigInt(SLOTS_PER_CONTRACT)) break;
    if (Date.now() > deadline) throw new Error('reads: the set-up transactions were not mined in 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
  const request = (method, params, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method, params });
  return {
    balances: targets.map((a, i) => request('eth_getBalance', [a, 'latest'], i)),
    slots: targets.map((_, i) =>
      request(
        'eth_getStorageAt',
        [contracts[i % contracts.length], `0x${Math.floor(i / contracts.length).toString(16)}`, 'latest'],
        i,
      ),
    ),
  };
}

async function reads() {
  const rows = [];
  for (const peer of peers) {
    await withNode(peer, 2, async (url, node) => {
      const { balances, slots } = await readState(url);
      const pid = node.child.pid;
      const balance = await loadTest({ url, seconds, body: balances, pid });
      const storage = await loadTest({ url, seconds, body: slots, pid });
      rows.push({
        peer,
        'getBalance req/s': balance.rps.toFixed(0),
        'getBalance p99 ms': balance.p99.toFixed(2),
        'getBalance CPU µs/req': balance.cpuPerRequestUs?.toFixed(1) ?? '-',
        'getStorageAt req/s': storage.rps.toFixed(0),
        'getStorageAt p99 ms': storage.p99.toFixed(2),
        'getStorageAt CPU µs/req': storage.cpuPerRequestUs?.toFixed(1) ?? '-',
        errors: balance.errors + storage.errors,
      });
    });
  }
  results.reads = rows;
  console.log(
    `\nreads at latest over ${READ_SPREAD} funded addresses and ${READ_SPREAD} storage slots, 64 connections, ${seconds} s each\n${table(rows, Object.keys(rows[0]))}`,
  );
  ratios(rows, 'getBalance req/s');
  ratios(rows, 'getStorageAt req/s');
}

async function block() {
  const rows = [];
  for (const peer of peers) {
    await withNode(peer, peer === 'wharf' ? 2 : 0, async (url) => {
      if (peer !== 'wharf')
        await rpc(url, 'evm_setAutomine', [false]).catch(() => rpc(url, 'evm_setIntervalMining', [0]));
      const raws = await signTransfers(url, dev.slice(0, 8), 25);
      await sendAll(url, raws);
      await mineOne(url, peer);
      // Find the block holding the transfers (wharf may have sealed them across two blocks).
      let n = BigInt(await rpc(url, 'eth_blockNumber'));
      let best = { n, count: 0 };
      for (let k = 0n; k < 3n && n - k > 0n; k++) {
        const b = await rpc(url, 'eth_getBlockByNumber', [`0x${(n - k).toString(16)}`, false]);
        if (b.transactions.length > best.count) best = { n: n - k, count: b.transactions.length };
      }
      const tag = `0x${best.n.toString(16)}`;
      const times = [];
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        await rpc(url, 'eth_getBlockByNumber', [tag, true]);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      rows.push({
        peer,
        transactions: best.count,
        'p50 ms': times[100].toFixed(2),
        'p99 ms': times[197].toFixed(2),
      });
      n = 0n;
    });
  }
  results.block = rows;
  console.log(
    `\neth_getBlockByNumber(n, true), 200 sequential requests\n${table(rows, Object.keys(rows[0]))}`,
  );
}

async function mine() {
  const rows = [];
  for (const peer of peers) {
    await withNode(peer, 1, async (url, node) => {
      // 100 funded senders x 20 transfers (twice): within every peer's per-account pool limits.
      const senders = Array.from({ length: 100 }, (_, i) =>
        privateKeyToAccount(`0x${(0xbe000000n + BigInt(i) + 1n).toString(16).padStart(64, '0')}`),
      );
      const chainId = Number(await rpc(url, 'eth_chainId'));
      const funding = [];
      for (const [i, s] of senders.entries()) {
        const from = dev[i % 10];
        const nonce = Number(await rpc(url, 'eth_getTransactionCount', [from.address, 'pending'])) + 0;
        funding.push(
          await from.signTransaction({
            chainId,
            type: 'eip1559',
            to: s.address,
            value: 10n ** 18n,
            nonce: nonce + Math.floor(i / 10) - Math.floor(i / 10),
            gas: 21_000n,
            maxFeePerGas: 100n * gwei,
            maxPriorityFeePerGas: gwei,
          }),
        );
        await rpc(url, 'eth_sendRawTransaction', [funding.at(-1)]);
      }
      while (BigInt(await rpc(url, 'eth_getBalance', [senders.at(-1).address, 'latest'])) === 0n)
        await new Promise((r) => setTimeout(r, 100));
      const first = await acceptAndMine(url, node.child.pid, await signTransfers(url, senders, 20));
      // The same again on the same node, once the first are mined: a node that has run a while.
      // The first round is also a JIT's warm-up (wharf's code runs cold the first time; Anvil's
      // is compiled ahead), so the two rounds tell the warm-up from the steady cost.
      const again = await acceptAndMine(url, node.child.pid, await signTransfers(url, senders, 20));
      rows.push({
        peer,
        accepted: first.accepted,
        refused: first.refused ? `${first.refused} (${first.firstError})` : 0,
        'accepted/s': (first.accepted / first.acceptSeconds).toFixed(0),
        'CPU µs/accepted': first.cpuPerAccepted?.toFixed(0) ?? '-',
        mined: first.mined,
        'mined/s': (first.mined / first.mineSeconds).toFixed(0),
        'again: accepted/s': (again.accepted / again.acceptSeconds).toFixed(0),
        'again: CPU µs/accepted': again.cpuPerAccepted?.toFixed(0) ?? '-',
        'again: refused': again.refused ? `${again.refused} (${again.firstError})` : 0,
      });
    });
  }
  results.mine = rows;
  console.log(
    `\n2,000 signed transfers, 1 s blocks (sent as JSON-RPC batches of 100 over 4 connections)\n${table(rows, Object.keys(rows[0]))}`,
  );
  ratios(rows, 'accepted/s');
  ratios(rows, 'again: accepted/s');
  ratios(rows, 'mined/s');
}

/**
 * Sends `raws` (batches of 100 over 4 connections) and waits until as many are mined: how long
 * the node took to accept them and to mine them, and its CPU per accepted transfer (all threads,
 * blocks built meanwhile included: a figure other load on the machine moves less than accepted/s).
 */
async function acceptAndMine(url, pid, raws) {
  const startBlock = BigInt(await rpc(url, 'eth_blockNumber'));
  const cpu0 = cpuTimeUs(pid);
  const t0 = performance.now();
  const { refused, firstError } = await sendBatches(url, raws);
  const accepted = raws.length - refused;
  const acceptSeconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuTimeUs(pid);
  const cpuPerAccepted =
    cpu0 !== undefined && cpu1 !== undefined && accepted ? (cpu1 - cpu0) / accepted : undefined;
  let mined = 0;
  let scanned = startBlock;
  const deadline = Date.now() + 120_000;
  while (mined < accepted && Date.now() < deadline) {
    const head = BigInt(await rpc(url, 'eth_blockNumber'));
    for (; scanned < head; scanned++) {
      const b = await rpc(url, 'eth_getBlockByNumber', [`0x${(scanned + 1n).toString(16)}`, false]);
      mined += b.transactions.length;
    }
    if (mined < accepted) await new Promise((r) => setTimeout(r, 50));
  }
  const mineSeconds = (performance.now() - t0) / 1000;
  return { accepted, refused, firstError, acceptSeconds, cpuPerAccepted, mined, mineSeconds };
}

async function importChain() {
  const shared = path.resolve(import.meta.dirname, '../../shared/conformance/execution-apis/tests');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-import-'));
  const bin = path.resolve(import.meta.dirname, '../packages/cli/dist/bin.js');
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      bin,
      'chain',
      'import',
      '--genesis',
      `${shared}/genesis.json`,
      '--chain',
      `${shared}/chain.rlp`,
      '--data-dir',
      dataDir,
    ],
    { encoding: 'utf8' },
  );
  const ms = performance.now() - t0;
  results.import = { ms, ok: r.status === 0, output: (r.stdout + r.stderr).trim().slice(-300) };
  console.log(
    `\nimport of the conformance chain (54 blocks): ${r.status === 0 ? `${ms.toFixed(0)} ms` : `failed: ${results.import.output}`}`,
  );
}

function ratios(rows, column) {
  const w = rows.find((r) => r.peer === 'wharf');
  if (!w) return;
  for (const r of rows)
    if (r.peer !== 'wharf')
      console.log(`  wharf / ${r.peer} (${column}): ${(Number(w[column]) / Number(r[column])).toFixed(2)}x`);
}

const run = { reads, block, mine, import: importChain };
for (const s of scenarios) {
  if (!run[s]) throw new Error(`unknown scenario ${s}; expected ${Object.keys(run).join(', ')}`);
  await run[s]();
}
fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
fs.writeFileSync(
  path.join(import.meta.dirname, 'results', `chain-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
  JSON.stringify({ machine: { cpus: os.cpus().length, node: process.version }, results }, null, 2),
);
