#!/usr/bin/env node
// Mines N signed transfers with 1 s blocks and prints accepted/s and mined/s, then times
// eth_getBlockByNumber(n, true) on the fullest block. The client (signing, submitting in batches
// of 100, polling) runs in a worker thread so that the node has the main thread to itself.
//   npx tsc -b tsconfig.build.json && node packages/chain/scripts/bench-transfers.mjs [N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

if (!isMainThread) {
  const { createCustomCommon, Hardfork, Mainnet } = await import('@ethereumjs/common');
  const { createFeeMarket1559Tx } = await import('@ethereumjs/tx');
  const { url, keys, n } = workerData;
  const common = createCustomCommon({ chainId: 31337 }, Mainnet, { hardfork: Hardfork.Prague });
  const raws = [];
  for (let i = 0; i < n; i++) {
    const tx = createFeeMarket1559Tx(
      {
        nonce: Math.floor(i / keys.length),
        to: `0x${(0x1000 + i).toString(16).padStart(40, '0')}`,
        value: 1n,
        gasLimit: 21000n,
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1n,
        chainId: 31337n,
      },
      { common },
    ).sign(Buffer.from(keys[i % keys.length].slice(2), 'hex'));
    raws.push(`0x${Buffer.from(tx.serialize()).toString('hex')}`);
  }
  const post = (body) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const rpc = async (method, params = []) => (await post({ jsonrpc: '2.0', id: 1, method, params })).result;
  const start0 = Number(await rpc('eth_blockNumber'));
  const t0 = performance.now();
  let id = 0;
  for (let i = 0; i < raws.length; i += 100) {
    const out = await post(
      raws
        .slice(i, i + 100)
        .map((r) => ({ jsonrpc: '2.0', id: id++, method: 'eth_sendRawTransaction', params: [r] })),
    );
    for (const r of out) if (r.error) throw new Error(r.error.message);
  }
  const accepted = performance.now() - t0;
  let mined = 0;
  let last = start0;
  let fullest = { n: 0, count: 0 };
  while (mined < n) {
    await new Promise((r) => setTimeout(r, 20));
    const head = Number(await rpc('eth_blockNumber'));
    for (let b = last + 1; b <= head; b++) {
      const count = Number(await rpc('eth_getBlockTransactionCountByNumber', [`0x${b.toString(16)}`]));
      mined += count;
      if (count > fullest.count) fullest = { n: b, count };
    }
    last = head;
  }
  const total = performance.now() - t0;
  const times = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await rpc('eth_getBlockByNumber', [`0x${fullest.n.toString(16)}`, true]);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  parentPort.postMessage(
    `${n} transfers: accepted ${(n / (accepted / 1000)).toFixed(0)}/s, mined ${(n / (total / 1000)).toFixed(0)}/s ` +
      `(${(total / 1000).toFixed(2)} s, blocks ${start0 + 1}..${last})\n` +
      `eth_getBlockByNumber(full) on a ${fullest.count}-tx block: p50 ${times[25].toFixed(1)} ms`,
  );
  process.exit(0);
}

const { defaultChainNodeOptions, startChainNode } = await import('../dist/index.js');
const N = Number(process.argv[2] ?? 2000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-bench-'));
const node = await startChainNode({
  ...defaultChainNodeOptions,
  dataDir,
  host: '127.0.0.1',
  port: 0,
  blockTime: 1,
});
const keys = node.accounts.slice(0, 10).map((a) => a.privateKey);
const msg = await new Promise((resolve, reject) => {
  const w = new Worker(new URL(import.meta.url), { workerData: { url: node.url, keys, n: N } });
  w.once('message', resolve);
  w.once('error', reject);
});
console.log(msg);
await node.close();
fs.rmSync(dataDir, { recursive: true, force: true });
