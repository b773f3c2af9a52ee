/**
 * Makes this fixture: a data directory written before decision 0540, its trie nodes (A, S) and
 * keys.stateLayer (L) in the chain's own LevelDB database, at least one disk-layer flush landed
 * (a window of 2 blocks, 70 blocks: the flush comes at 64), and what that node answered.
 * Run with the build of that version (main at 6dfb8ec):
 *   node make.mjs /path/to/that/checkout/packages/chain/dist/index.js
 */
import fs from 'node:fs';
import path from 'node:path';
import { startOldNode } from '../fixtures-make.mjs';

const { node, dataDir, rpc } = await startOldNode({ blockTime: 0, stateWindow: 2 });
const [from] = await rpc('eth_accounts');
// A contract whose runtime stores calldata[0..32] at slot calldata[32..64] (storage-trie nodes).
// runtime: 60003560203555 00 = PUSH1 0 CALLDATALOAD PUSH1 32 CALLDATALOAD SSTORE STOP
const runtime = '6000356020355500';
const init = `0x6008600c60003960086000f3${runtime}`;
const deploy = await rpc('eth_sendTransaction', [{ from, data: init, gas: '0x30000' }]);
const contract = (await rpc('eth_getTransactionReceipt', [deploy])).contractAddress;
const recipients = [];
const word = (n) => n.toString(16).padStart(64, '0');
for (let i = 1; i <= 69; i++) {
  const to = `0x${(0xb000 + i).toString(16).padStart(40, '0')}`;
  recipients.push(to);
  await rpc('eth_sendTransaction', [{ from, to, value: `0x${(i * 1000).toString(16)}` }]);
  if (i % 10 === 0)
    await rpc('eth_sendTransaction', [
      { from, to: contract, data: `0x${word(i * 7)}${word(i)}`, gas: '0x20000' },
    ]);
}
const head = Number(await rpc('eth_blockNumber'));
const at = (n) => `0x${n.toString(16)}`;
const answers = { head, from, contract, recipients, latest: {}, previous: {} };
for (const [tag, n] of [
  ['latest', head],
  ['previous', head - 1],
]) {
  const out = answers[tag];
  out.block = at(n);
  for (const a of [from, contract, ...recipients])
    out[a] = {
      balance: await rpc('eth_getBalance', [a, at(n)]),
      nonce: await rpc('eth_getTransactionCount', [a, at(n)]),
    };
  out.proofs = {
    [from]: await rpc('eth_getProof', [from, [], at(n)]),
    [recipients[0]]: await rpc('eth_getProof', [recipients[0], [], at(n)]),
    [contract]: await rpc('eth_getProof', [contract, [at(10), at(60), at(5)], at(n)]),
  };
}
await node.close();
const here = import.meta.dirname;
fs.rmSync(path.join(here, 'chain'), { recursive: true, force: true });
fs.cpSync(path.join(dataDir, 'chain'), path.join(here, 'chain'), { recursive: true });
// Small blocks' bodies stay in LevelDB (decision 0491): chain-bodies holds nothing to keep.
fs.rmSync(path.join(here, 'chain', 'LOCK'), { force: true });
fs.rmSync(path.join(here, 'chain', 'LOG'), { force: true });
fs.writeFileSync(path.join(here, 'answers.json'), `${JSON.stringify(answers, null, 1)}\n`);
console.log('head', head, 'files', fs.readdirSync(dataDir));
