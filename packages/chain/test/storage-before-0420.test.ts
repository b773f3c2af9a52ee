/**
 * A data directory written before decisions 0421-0423 (receipts stored with their bloom,
 * accounts in full, the transaction index naming block hashes; fixtures-before-0420, made by main at 4630a60 with its make.mjs) opens with
 * this version and answers exactly what the old node answered; blocks sealed on top of it are
 * stored the new way, and after a restart both read as they should.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach, rpc, startTestNode, tempDir } from './node-helpers.js';

const fixture = path.join(import.meta.dirname, 'fixtures-before-0420');
const answers = JSON.parse(fs.readFileSync(path.join(fixture, 'answers.json'), 'utf8'));

const { nodes, dirs } = cleanUpAfterEach();

async function expectOldAnswers(url: string): Promise<void> {
  for (const [n, b] of answers.blocks.entries()) {
    const h = `0x${n.toString(16)}`;
    expect(await rpc(url, 'eth_getBlockByNumber', [h, true])).toEqual(b.block);
    expect(await rpc(url, 'eth_getBlockReceipts', [h])).toEqual(b.receipts);
    expect(await rpc(url, 'debug_getRawReceipts', [h])).toEqual(b.raw);
  }
  // By hash, through the transaction index as written before decision 0423 (block hash + u64).
  const receipts = answers.blocks.flatMap((b: any) => b.receipts);
  for (const h of answers.hashes)
    expect(await rpc(url, 'eth_getTransactionReceipt', [h])).toEqual(
      receipts.find((r: any) => r.transactionHash === h),
    );
  for (const [a, v] of Object.entries<any>(answers.accounts)) {
    expect(await rpc(url, 'eth_getBalance', [a, `0x${answers.head.toString(16)}`])).toBe(v.balance);
    expect(await rpc(url, 'eth_getTransactionCount', [a, `0x${answers.head.toString(16)}`])).toBe(v.nonce);
  }
}

describe('a data directory written before decisions 0421/0422', () => {
  it('answers as the old node did, takes new blocks in the new format, and restarts', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    fs.cpSync(path.join(fixture, 'chain'), path.join(dataDir, 'chain'), { recursive: true });

    const a = await startTestNode({ dataDir });
    nodes.push(a);
    await expectOldAnswers(a.url);
    // The latest state, proofs included, from the old full accounts.
    for (const [addr, v] of Object.entries<any>(answers.accounts))
      expect(await rpc(a.url, 'eth_getProof', [addr, [], 'latest'])).toEqual(v.proof);

    // New blocks on top: a transfer to a fresh address and a deploy that logs.
    const { from } = answers;
    const fresh = '0x00000000000000000000000000000000000000b7';
    const t1 = await rpc(a.url, 'eth_sendTransaction', [{ from, to: fresh, value: '0x5' }]);
    const init = `0x7f${'44'.repeat(32)}60006000a100`;
    const t2 = await rpc(a.url, 'eth_sendTransaction', [{ from, data: init, gas: '0x30000' }]);
    const r1 = await rpc(a.url, 'eth_getTransactionReceipt', [t1]);
    const r2 = await rpc(a.url, 'eth_getTransactionReceipt', [t2]);
    expect(r2.logs).toHaveLength(1);
    expect(r2.logsBloom).not.toBe(`0x${'0'.repeat(512)}`);
    const raw2 = await rpc(a.url, 'debug_getRawReceipts', [r2.blockNumber]);
    const balance = await rpc(a.url, 'eth_getBalance', [fresh, 'latest']);
    const nonce = await rpc(a.url, 'eth_getTransactionCount', [from, 'latest']);
    await a.stop({ keepData: true });
    nodes.splice(0);

    const b = await startTestNode({ dataDir });
    nodes.push(b);
    await expectOldAnswers(b.url);
    expect(await rpc(b.url, 'eth_getTransactionReceipt', [t1])).toEqual(r1);
    expect(await rpc(b.url, 'eth_getTransactionReceipt', [t2])).toEqual(r2);
    expect(await rpc(b.url, 'debug_getRawReceipts', [r2.blockNumber])).toEqual(raw2);
    expect(await rpc(b.url, 'eth_getBalance', [fresh, 'latest'])).toBe(balance);
    expect(await rpc(b.url, 'eth_getTransactionCount', [from, 'latest'])).toBe(nonce);
    // The header's logsBloom (consensus) and the receipt's, computed again, agree.
    const block = await rpc(b.url, 'eth_getBlockByNumber', [r2.blockNumber, false]);
    expect(block.logsBloom).toBe(r2.logsBloom);
  }, 60_000);
});
