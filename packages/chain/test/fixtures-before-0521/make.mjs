/**
 * Makes this fixture: a data directory written before decision 0521 (a busy block's body whole in
 * the body files of 0491; the flashblock journal in three files `flashblocks.journal.{0,1,2}`),
 * left by a kill -9 while a block with pre-confirmed transactions was being built, and what that
 * node answered. Run with the build of that version (main at 6dfb8ec):
 *   node make.mjs /path/to/that/checkout/packages/chain/dist/index.js
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startOldNode } from '../fixtures-make.mjs';

const { dataDir, rpc } = await startOldNode({
  // Long blocks: the last transfers are pre-confirmed, not sealed, when the process dies.
  blockTime: 6,
  flashblockInterval: 200,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const [from] = await rpc('eth_accounts');
// 200 transfers to fresh addresses: one block of ~22 KB of transactions (its body past 16 KiB
// goes to the body files).
const to = (i) => `0x${(0xb0000 + i).toString(16).padStart(40, '0')}`;
const sealed = [];
for (let i = 0; i < 200; i++)
  sealed.push(await rpc('eth_sendTransaction', [{ from, to: to(i), value: '0x1' }]));
let last;
for (;;) {
  last = await rpc('eth_getTransactionReceipt', [sealed.at(-1)]);
  if (last?.blockHash && !/^0x0{64}$/.test(last.blockHash)) break;
  await sleep(100);
}
// Right after a seal: three more, pre-confirmed in the next block, which is not sealed.
const head0 = Number(await rpc('eth_blockNumber'));
for (;;) {
  if (Number(await rpc('eth_blockNumber')) > head0) break;
  await sleep(20);
}
const pending = [];
for (let i = 0; i < 3; i++)
  pending.push(await rpc('eth_sendTransaction', [{ from, to: to(300 + i), value: '0x2' }]));
for (;;) {
  const r = await rpc('eth_getTransactionReceipt', [pending.at(-1)]);
  if (r) break;
  await sleep(20);
}
const head = Number(await rpc('eth_blockNumber'));
// The answers as digests (sha256 of their JSON): the busy block's are ~400 KB.
const digest = (v) => createHash('sha256').update(JSON.stringify(v)).digest('hex');
const answers = { head, from, sealed, pending, blocks: [] };
for (let n = 0; n <= head; n++) {
  const h = `0x${n.toString(16)}`;
  const block = await rpc('eth_getBlockByNumber', [h, true]);
  answers.blocks.push({
    hash: block.hash,
    transactions: block.transactions.length,
    block: digest(block),
    receipts: digest(await rpc('eth_getBlockReceipts', [h])),
    raw: digest(await rpc('debug_getRawBlock', [h])),
  });
}
// Still being built: nothing of it sealed yet.
if (Number(await rpc('eth_blockNumber')) !== head)
  throw new Error('a block was sealed while the answers were read: run again');
const here = path.dirname(new URL(import.meta.url).pathname);
fs.writeFileSync(path.join(here, 'answers.json'), `${JSON.stringify(answers, null, 1)}\n`);
fs.rmSync(path.join(here, 'data'), { recursive: true, force: true });
// kill -9 at this moment: copy the data directory as the crash leaves it (the journal's files and
// LevelDB as they are on disk now), then die.
fs.cpSync(dataDir, path.join(here, 'data'), { recursive: true });
fs.rmSync(path.join(here, 'data', 'chain', 'LOCK'), { force: true });
process.kill(process.pid, 'SIGKILL');
