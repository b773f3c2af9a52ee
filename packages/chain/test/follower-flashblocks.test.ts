/**
 * A follower applies its sequencer's flashblocks: pending (block, receipts, balances) shows what
 * the sequencer pre-confirmed, re-executed here; a flashblock whose re-execution does not give
 * what it claims is dropped and counted, never shown; a flashblock the sealed block contradicts
 * is dropped and counted, and the sealed block wins; the stream is opened again after a drop.
 * The sequencers seal only when told (evm_mine), so each step is deterministic. The stream goes
 * through a relay here (a hostile sequencer's stream: it can alter or cut it) or comes from a
 * second sequencer on a copy of the first one's data dir (a fork: valid flashblocks of another
 * history).
 */
import fs from 'node:fs';
import path from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { rpc, startTestNode, type TestNode, tempDir, waitFor } from './node-helpers.js';

const SEALS_WHEN_TOLD = { blockTime: 3600, flashblockInterval: 100 };
let sequencer: TestNode;
let fork: TestNode;
let relayed: TestNode;
let forked: TestNode;
let relay: WebSocketServer;
/** The relay's next flashblock with transactions gets another state root. */
let tamperNext = false;

async function metric(node: TestNode, name: string): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no metric ${name}`);
  return Number(line.split(' ')[1]);
}

function transfer(node: TestNode, key: number, nonce: number, to: string) {
  return privateKeyToAccount(node.accounts[key].privateKey).signTransaction({
    to: to as `0x${string}`,
    value: 1000n,
    nonce,
    gas: 21000n,
    maxFeePerGas: 10_000_000_000n,
    maxPriorityFeePerGas: 1n,
    chainId: 31337,
    type: 'eip1559',
  });
}

beforeAll(async () => {
  // Two sequencers with one genesis: the second runs on a copy of the first one's data dir.
  const dir = tempDir();
  const first = await startTestNode({ ...SEALS_WHEN_TOLD, dataDir: dir });
  await first.stop({ keepData: true });
  const copy = tempDir();
  fs.cpSync(dir, copy, { recursive: true });
  fs.rmSync(path.join(copy, 'flashblocks.journal'), { recursive: true, force: true });
  sequencer = await startTestNode({ ...SEALS_WHEN_TOLD, dataDir: dir });
  fork = await startTestNode({ ...SEALS_WHEN_TOLD, dataDir: copy });

  relay = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  relay.on('connection', (client) => {
    const upstream = new WebSocket(`${sequencer.wsUrl}/flashblocks`);
    upstream.on('message', (data) => {
      let text = data.toString();
      if (tamperNext) {
        const m = JSON.parse(text);
        if (m.diff.transactions.length) {
          m.diff.state_root = `0x${'11'.repeat(32)}`;
          text = JSON.stringify(m);
          tamperNext = false;
        }
      }
      if (client.readyState === WebSocket.OPEN) client.send(text);
    });
    client.on('close', () => upstream.terminate());
  });
  await new Promise((r) => relay.once('listening', r));
  const relayUrl = `ws://127.0.0.1:${(relay.address() as { port: number }).port}`;
  relayed = await startTestNode({ follow: { sequencerUrl: sequencer.url, flashblocksUrl: relayUrl } });
  forked = await startTestNode({
    follow: { sequencerUrl: sequencer.url, flashblocksUrl: `${fork.wsUrl}/flashblocks` },
  });
  for (const f of [relayed, forked])
    await waitFor(async () => (await metric(f, 'wharf_follower_stream_connected')) === 1);
}, 60_000);

afterAll(async () => {
  for (const n of [relayed, forked, sequencer, fork]) await n?.stop();
  relay?.close();
});

describe('a follower applying flashblocks', () => {
  // First: the fork and the sequencer are both at genesis only until the sequencer seals.
  it('drops the flashblocks a sealed block contradicts (another history), counted, and keeps the sealed block', async () => {
    const dropped = await metric(forked, 'wharf_follower_flashblocks_dropped_total');
    // The fork pre-confirms one transfer; the follower shows it at pending.
    const x = await rpc(fork.url, 'eth_sendRawTransactionSync', [
      await transfer(fork, 2, 0, '0x00000000000000000000000000000000000f0a01'),
    ]);
    await waitFor(() => rpc(forked.url, 'eth_getTransactionReceipt', [x.transactionHash]), 2_000);
    // The sequencer seals another transfer with the same nonce.
    await rpc(sequencer.url, 'eth_sendRawTransactionSync', [
      await transfer(sequencer, 2, 0, '0x00000000000000000000000000000000000f0a02'),
    ]);
    await rpc(sequencer.url, 'evm_mine');
    const head = await rpc(sequencer.url, 'eth_getBlockByNumber', ['latest', false]);
    expect(head.number).toBe('0x1');
    await waitFor(
      async () => (await rpc(forked.url, 'eth_getBlockByNumber', ['latest', false])).hash === head.hash,
    );
    expect(await rpc(forked.url, 'eth_getTransactionReceipt', [x.transactionHash])).toBeNull();
    expect(
      await rpc(forked.url, 'eth_getBalance', ['0x00000000000000000000000000000000000f0a01', 'latest']),
    ).toBe('0x0');
    expect(
      await rpc(forked.url, 'eth_getBalance', ['0x00000000000000000000000000000000000f0a02', 'latest']),
    ).toBe('0x3e8');
    expect(await metric(forked, 'wharf_follower_flashblocks_dropped_total')).toBeGreaterThan(dropped);
  });

  it('shows in pending what the sequencer pre-confirmed: block, receipt, balance', async () => {
    const to = '0x00000000000000000000000000000000000f1a51';
    const { transactionHash } = await rpc(sequencer.url, 'eth_sendRawTransactionSync', [
      await transfer(sequencer, 1, 0, to),
    ]);
    const receipt = await waitFor(
      () => rpc(relayed.url, 'eth_getTransactionReceipt', [transactionHash]),
      2_000,
    );
    expect(receipt.status).toBe('0x1');
    const [ours, theirs] = await Promise.all([
      rpc(sequencer.url, 'eth_getBlockByNumber', ['pending', false]),
      rpc(relayed.url, 'eth_getBlockByNumber', ['pending', false]),
    ]);
    expect(theirs.transactions).toEqual(ours.transactions);
    expect(theirs.stateRoot).toBe(ours.stateRoot);
    expect(theirs.receiptsRoot).toBe(ours.receiptsRoot);
    expect(await rpc(relayed.url, 'eth_getBalance', [to, 'pending'])).toBe('0x3e8');
    expect(await rpc(relayed.url, 'eth_getBalance', [to, 'latest'])).toBe('0x0');
    expect(await metric(relayed, 'wharf_follower_flashblocks_applied_total')).toBeGreaterThan(0);

    // The sealed block is the pending one: same hash, sealed from the flashblocks.
    const fromFlashblocks = await metric(relayed, 'wharf_follower_blocks_total{path="flashblocks"}');
    await rpc(sequencer.url, 'evm_mine');
    const head = await rpc(sequencer.url, 'eth_getBlockByNumber', ['latest', false]);
    await waitFor(
      async () => (await rpc(relayed.url, 'eth_getBlockByNumber', ['latest', false])).hash === head.hash,
    );
    expect(await metric(relayed, 'wharf_follower_blocks_total{path="flashblocks"}')).toBe(
      fromFlashblocks + 1,
    );
  });

  it('drops a flashblock whose re-execution does not give its state root, and counts it; the sealed block settles it', async () => {
    const dropped = await metric(relayed, 'wharf_follower_flashblocks_dropped_total');
    tamperNext = true;
    const { transactionHash } = await rpc(sequencer.url, 'eth_sendRawTransactionSync', [
      await transfer(sequencer, 1, 1, '0x00000000000000000000000000000000000f1a52'),
    ]);
    await waitFor(async () => (await metric(relayed, 'wharf_follower_flashblocks_dropped_total')) > dropped);
    // Never shown, whatever comes after it in that block.
    await new Promise((r) => setTimeout(r, 500));
    expect(await rpc(relayed.url, 'eth_getTransactionReceipt', [transactionHash])).toBeNull();
    expect((await rpc(relayed.url, 'eth_getBlockByNumber', ['pending', false])).transactions).toEqual([]);
    await rpc(sequencer.url, 'evm_mine');
    const head = await rpc(sequencer.url, 'eth_getBlockByNumber', ['latest', false]);
    await waitFor(
      async () => (await rpc(relayed.url, 'eth_getBlockByNumber', ['latest', false])).hash === head.hash,
    );
    const receipt = await rpc(relayed.url, 'eth_getTransactionReceipt', [transactionHash]);
    expect(receipt.blockHash).toBe(head.hash);
  });

  it('opens the stream again when it drops, and goes on applying flashblocks', async () => {
    const connections = await metric(relayed, 'wharf_follower_stream_connections_total');
    for (const c of relay.clients) c.terminate();
    await waitFor(
      async () => (await metric(relayed, 'wharf_follower_stream_connections_total')) > connections,
    );
    const { transactionHash } = await rpc(sequencer.url, 'eth_sendRawTransactionSync', [
      await transfer(sequencer, 1, 2, '0x00000000000000000000000000000000000f1a53'),
    ]);
    const receipt = await waitFor(
      () => rpc(relayed.url, 'eth_getTransactionReceipt', [transactionHash]),
      2_000,
    );
    expect(receipt.status).toBe('0x1');
    expect(receipt.blockHash).toBe(`0x${'0'.repeat(64)}`); // pre-confirmed, not sealed
  });
});
