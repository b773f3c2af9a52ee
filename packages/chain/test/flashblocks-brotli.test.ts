/**
 * `/flashblocks?compression=brotli`: the same FlashblocksPayloadV1 messages, each
 * Brotli-compressed in a binary frame (as Base's public endpoint sends them); Base's field list.
 */
import { brotliDecompressSync } from 'node:zlib';
import { keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ blockTime: 2, flashblockInterval: 200 });
});
afterAll(async () => {
  await node?.stop();
});

function listen(url: string) {
  const ws = new WebSocket(url);
  const frames: { binary: boolean; data: Buffer }[] = [];
  ws.on('message', (d, binary) => frames.push({ binary, data: Buffer.from(d as Buffer) }));
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.on('close', (code, reason) => r({ code, reason: reason.toString() })),
  );
  const open = new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  return { ws, frames, closed, open };
}

describe('/flashblocks compression', () => {
  it('sends the same messages Brotli-compressed in binary frames to a client that asks', async () => {
    const plain = listen(`${node.wsUrl}/flashblocks`);
    const br = listen(`${node.wsUrl}/flashblocks?compression=brotli`);
    await Promise.all([plain.open, br.open]);
    try {
      const account = privateKeyToAccount(node.accounts[0].privateKey);
      const raw = await account.signTransaction({
        to: '0x00000000000000000000000000000000000b2071',
        value: 1n,
        nonce: 0,
        gas: 21000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
        chainId: 31337,
        type: 'eip1559',
      });
      const hash = await rpc(node.url, 'eth_sendRawTransaction', [raw]);
      const carrying = (frames: { data: Buffer }[], decode: (b: Buffer) => string) =>
        frames.map((f) => JSON.parse(decode(f.data))).find((m) => m.diff.transactions.includes(raw));
      const decodeBr = (b: Buffer) => brotliDecompressSync(b).toString();
      await waitFor(
        async () => carrying(br.frames, decodeBr) && carrying(plain.frames, (b) => b.toString()),
        5000,
      );

      expect(plain.frames.every((f) => !f.binary)).toBe(true);
      expect(br.frames.every((f) => f.binary)).toBe(true);
      // Frame for frame the same JSON once decompressed (both joined the same block at index 0).
      const n = Math.min(plain.frames.length, br.frames.length);
      expect(br.frames.slice(0, n).map((f) => decodeBr(f.data))).toEqual(
        plain.frames.slice(0, n).map((f) => f.data.toString()),
      );
      // Smaller on the wire.
      const bytes = (fs: { data: Buffer }[]) => fs.slice(0, n).reduce((a, f) => a + f.data.length, 0);
      expect(bytes(br.frames)).toBeLessThan(bytes(plain.frames));

      // Base's FlashblocksPayloadV1 fields.
      const messages = br.frames.map((f) => JSON.parse(decodeBr(f.data)));
      const first = messages.find((m) => m.index === 0);
      expect(Object.keys(first.base).sort()).toEqual(
        [
          'base_fee_per_gas',
          'block_number',
          'extra_data',
          'fee_recipient',
          'gas_limit',
          'parent_beacon_block_root',
          'parent_hash',
          'prev_randao',
          'timestamp',
        ].sort(),
      );
      const m = carrying(br.frames, decodeBr);
      expect(Object.keys(m).sort()).toEqual(['diff', 'index', 'metadata', 'payload_id']);
      expect(m.payload_id).toMatch(/^0x[0-9a-f]{16}$/);
      expect(Object.keys(m.diff).sort()).toEqual(
        [
          'blob_gas_used',
          'block_hash',
          'gas_used',
          'logs_bloom',
          'receipts_root',
          'state_root',
          'transactions',
          'withdrawals',
          'withdrawals_root',
        ].sort(),
      );
      expect(m.metadata.block_number).toBeTypeOf('number');
      expect(m.metadata.receipts[hash]).toMatchObject({ Eip1559: { status: '0x1' } });
      expect(keccak256(raw)).toBe(hash);
      expect(m.metadata.new_account_balances['0x00000000000000000000000000000000000b2071']).toBe('0x1');
    } finally {
      plain.ws.terminate();
      br.ws.terminate();
    }
  });

  it('refuses a compression it does not have, naming it', async () => {
    const c = listen(`${node.wsUrl}/flashblocks?compression=gzip`);
    expect(await c.closed).toEqual({
      code: 1008,
      reason: 'unsupported compression "gzip": use compression=brotli or none',
    });
    // The node goes on serving.
    expect(await rpc(node.url, 'eth_chainId')).toBe('0x7a69');
  });
});
