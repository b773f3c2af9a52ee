/**
 * A data directory written before decision 0521 (fixtures-before-0521, made by main at 6dfb8ec
 * with its make.mjs): a busy block's body whole in the body files, the flashblock journal in its
 * three files, and a kill -9 while a block with three pre-confirmed transfers was being built.
 * This version opens it, seals the interrupted block with those transfers, answers the old
 * blocks exactly as the old node did, removes the old journal files once that block is on disk,
 * and keeps blocks built in flashblocks on top (their bodies in the journal) across a restart.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanUpAfterEach, rpc, startTestNode, tempDir, waitFor } from './node-helpers.js';

const fixture = path.join(import.meta.dirname, 'fixtures-before-0521');
const answers = JSON.parse(fs.readFileSync(path.join(fixture, 'answers.json'), 'utf8'));
const digest = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex');

const { nodes, dirs } = cleanUpAfterEach();

async function expectOldBlocks(url: string): Promise<void> {
  for (const [n, b] of answers.blocks.entries()) {
    const h = `0x${n.toString(16)}`;
    const block = await rpc(url, 'eth_getBlockByNumber', [h, true]);
    expect(block.hash).toBe(b.hash);
    expect(block.transactions).toHaveLength(b.transactions);
    expect(digest(block), `block ${n}`).toBe(b.block);
    expect(digest(await rpc(url, 'eth_getBlockReceipts', [h])), `receipts of block ${n}`).toBe(b.receipts);
    expect(digest(await rpc(url, 'debug_getRawBlock', [h])), `raw block ${n}`).toBe(b.raw);
  }
  for (const t of [answers.sealed[0], answers.sealed[199]])
    expect(await rpc(url, 'eth_getTransactionByHash', [t])).toMatchObject({ hash: t, blockNumber: '0x1' });
}

const options = { blockTime: 1, flashblockInterval: 100 };

describe('a data directory written before decision 0521', () => {
  it('seals the block its old journal held, answers its old blocks as before, and keeps new blocks across a restart', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    fs.cpSync(path.join(fixture, 'data'), dataDir, { recursive: true });
    const oldJournal = ['0', '1', '2'].map((i) => path.join(dataDir, `flashblocks.journal.${i}`));
    expect(oldJournal.every((f) => fs.existsSync(f))).toBe(true);

    const a = await startTestNode({ dataDir, ...options });
    nodes.push(a);
    await expectOldBlocks(a.url);
    // The three transfers pre-confirmed at the kill are sealed in the block after the old head.
    const next = `0x${(answers.head + 1).toString(16)}`;
    for (const t of answers.pending)
      expect(await rpc(a.url, 'eth_getTransactionReceipt', [t])).toMatchObject({
        blockNumber: next,
        status: '0x1',
      });
    expect(oldJournal.some((f) => fs.existsSync(f))).toBe(false);

    // A busy block built in flashblocks on top: its body is its journal records.
    const { from } = answers;
    const sent: string[] = [];
    for (let i = 0; i < 200; i++)
      sent.push(
        await rpc(a.url, 'eth_sendTransaction', [
          { from, to: `0x${(0xd0000 + i).toString(16).padStart(40, '0')}`, value: '0x3' },
        ]),
      );
    const last = await waitFor(async () => {
      const r = await rpc(a.url, 'eth_getTransactionReceipt', [sent[199]]);
      return r?.blockHash && !/^0x0{64}$/.test(r.blockHash) ? r : undefined;
    }, 20_000);
    await waitFor(async () =>
      BigInt(await rpc(a.url, 'eth_blockNumber')) > BigInt(last.blockNumber) ? true : undefined,
    );
    const newBlocks = [];
    for (let n = answers.head + 1; n <= Number(last.blockNumber); n++) {
      const h = `0x${n.toString(16)}`;
      newBlocks.push(
        await Promise.all([
          rpc(a.url, 'eth_getBlockByNumber', [h, true]),
          rpc(a.url, 'eth_getBlockReceipts', [h]),
          rpc(a.url, 'debug_getRawBlock', [h]),
        ]),
      );
    }
    // At least one of them kept its body as its journal records (not its transactions again).
    const metrics = await (await fetch(`${a.url}/metrics`)).text();
    expect(Number(/^wharf_block_bodies_in_journal_total (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(
      1,
    );
    await a.stop({ keepData: true });
    nodes.splice(0);
    const folder = path.join(dataDir, 'chain-bodies');
    expect(fs.readdirSync(folder).some((f) => f.endsWith('.journal'))).toBe(true);

    const b = await startTestNode({ dataDir, ...options });
    nodes.push(b);
    await expectOldBlocks(b.url);
    for (const [i, [block, receipts, raw]] of newBlocks.entries()) {
      const h = `0x${(answers.head + 1 + i).toString(16)}`;
      expect(await rpc(b.url, 'eth_getBlockByNumber', [h, true])).toEqual(block);
      expect(await rpc(b.url, 'eth_getBlockReceipts', [h])).toEqual(receipts);
      expect(await rpc(b.url, 'debug_getRawBlock', [h])).toEqual(raw);
    }
    for (const t of [...answers.pending, sent[0], sent[199]])
      expect((await rpc(b.url, 'eth_getTransactionByHash', [t]))?.hash).toBe(t);
  }, 90_000);
});
