#!/usr/bin/env node
// Mines N signed transfers with 1 s blocks and prints accepted/s and mined/s.
//   npx tsc -b tsconfig.build.json && node packages/chain/scripts/bench-transfers.mjs [N]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFeeMarket1559Tx } from '@ethereumjs/tx';
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common';
import { defaultChainNodeOptions, startChainNode } from '../dist/index.js';

const N = Number(process.argv[2] ?? 2000);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wharf-bench-'));
const node = await startChainNode({
  ...defaultChainNodeOptions,
  dataDir,
  host: '127.0.0.1',
  port: 0,
  blockTime: 1,
});
const common = createCustomCommon({ chainId: 31337 }, Mainnet, { hardfork: Hardfork.Prague });
const senders = node.accounts.slice(0, 10);
const raws = [];
for (let i = 0; i < N; i++) {
  const s = senders[i % senders.length];
  const tx = createFeeMarket1559Tx(
    {
      nonce: Math.floor(i / senders.length),
      to: `0x${(0x1000 + i).toString(16).padStart(40, '0')}`,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337n,
    },
    { common },
  ).sign(Buffer.from(s.privateKey.slice(2), 'hex'));
  raws.push(`0x${Buffer.from(tx.serialize()).toString('hex')}`);
}
const post = (body) =>
  fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then((r) => r.json());
const start0 = Number((await post({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' })).result);
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
while (mined < N) {
  await new Promise((r) => setTimeout(r, 50));
  const head = Number((await post({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' })).result);
  for (let n = last + 1; n <= head; n++) {
    const b = (
      await post({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getBlockByNumber',
        params: [`0x${n.toString(16)}`, false],
      })
    ).result;
    mined += b.transactions.length;
  }
  last = head;
}
const total = performance.now() - t0;
console.log(
  `${N} transfers: accepted ${(N / (accepted / 1000)).toFixed(0)}/s, mined ${(N / (total / 1000)).toFixed(0)}/s (${(total / 1000).toFixed(2)} s, blocks ${start0 + 1}..${last})`,
);
// eth_getBlockByNumber(n, true) on the fullest block: p50 over 50 calls.
let fullest = { n: 0, count: 0 };
for (let n = start0 + 1; n <= last; n++) {
  const b = (
    await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_getBlockTransactionCountByNumber',
      params: [`0x${n.toString(16)}`],
    })
  ).result;
  if (Number(b) > fullest.count) fullest = { n, count: Number(b) };
}
const times = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_getBlockByNumber',
    params: [`0x${fullest.n.toString(16)}`, true],
  });
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log(`eth_getBlockByNumber(full) on a ${fullest.count}-tx block: p50 ${times[25].toFixed(1)} ms`);
await node.close();
fs.rmSync(dataDir, { recursive: true, force: true });
