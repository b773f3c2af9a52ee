/**
 * Makes this fixture: a data directory written by the storage format before decisions 0421 and
 * 0422 (receipts with their bloom, accounts in full), and what that node answered about it.
 * Run with the build of that version (main at 4630a60):
 *   node make.mjs /path/to/that/checkout/packages/chain/dist/index.js
 */
import fs from 'node:fs';
import path from 'node:path';
import { startOldNode } from '../fixtures-make.mjs';

const { node, dataDir, rpc } = await startOldNode({ blockTime: 0 });
const [from] = await rpc('eth_accounts');
const recipients = [
  '0x00000000000000000000000000000000000000a1',
  '0x00000000000000000000000000000000000000a2',
];
// A constructor that emits LOG1 (topic 0x11..11) and LOG2 with 32 bytes of data, then stops.
const topic = (b) => b.repeat(32);
const init = `0x7f${topic('11')}60006000a1` + `6042600052` + `7f${topic('22')}7f${topic('33')}60206000a200`;
const hashes = [];
hashes.push(await rpc('eth_sendTransaction', [{ from, to: recipients[0], value: '0x1000' }]));
hashes.push(await rpc('eth_sendTransaction', [{ from, data: init, gas: '0x30000' }]));
hashes.push(
  await rpc('eth_sendTransaction', [
    { from, to: recipients[1], value: '0x2000', type: '0x0', gasPrice: '0x77359400' },
  ]),
);
hashes.push(await rpc('eth_sendTransaction', [{ from, data: init, gas: '0x30000' }]));
const head = Number(await rpc('eth_blockNumber'));
const answers = { head, from, recipients, hashes, blocks: [], accounts: {} };
for (let n = 0; n <= head; n++) {
  const h = `0x${n.toString(16)}`;
  answers.blocks.push({
    block: await rpc('eth_getBlockByNumber', [h, true]),
    receipts: await rpc('eth_getBlockReceipts', [h]),
    raw: await rpc('debug_getRawReceipts', [h]),
  });
}
const created = [];
for (const h of hashes) {
  const r = await rpc('eth_getTransactionReceipt', [h]);
  if (r.contractAddress) created.push(r.contractAddress);
}
for (const a of [from, ...recipients, ...created])
  answers.accounts[a] = {
    balance: await rpc('eth_getBalance', [a, 'latest']),
    nonce: await rpc('eth_getTransactionCount', [a, 'latest']),
    proof: await rpc('eth_getProof', [a, [], 'latest']),
  };
await node.close();
const here = import.meta.dirname;
fs.rmSync(path.join(here, 'chain'), { recursive: true, force: true });
fs.cpSync(path.join(dataDir, 'chain'), path.join(here, 'chain'), { recursive: true });
fs.writeFileSync(path.join(here, 'answers.json'), `${JSON.stringify(answers, null, 1)}\n`);
console.log('head', head, 'files', fs.readdirSync(dataDir));
