/**
 * The start's warm-up (decision 0550): a node started with it shows nothing of it. Its block
 * number, pool, balances, nonces and counters are those of a node started without it, the
 * transfers it then takes are its chain's first, and the warm-up says what it ran in one debug
 * line. (How much faster the first burst is: docs/perf/2026-11-28-cold-ingest.md.)
 */
import pino from 'pino';
import { expect, it } from 'vitest';
import { cleanUpAfterEach, rpc, startTestNode, waitFor } from './node-helpers.js';

const { nodes } = cleanUpAfterEach();

/** Counters the warm-up would move if it ran on the node's own chain, pool or builder. */
const COUNTERS = [
  'wharf_blocks_sealed_total',
  'wharf_flashblocks_total',
  'wharf_flashblock_transactions_count',
  'wharf_submit_to_pending_seconds_count',
  'wharf_seal_seconds_count',
  'wharf_txpool_recoveries_on_main_thread_total',
  'wharf_state_diff_bytes_total',
  'wharf_block_batch_bytes_total',
  'wharf_block_body_bytes_total',
];

async function counters(url: string): Promise<Record<string, string | undefined>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const lines = text.split('\n');
  return Object.fromEntries(
    COUNTERS.map((name) => [name, lines.find((l) => l.startsWith(`${name} `))?.split(' ')[1]]),
  );
}

/** What a client sees of a node that has done nothing yet. */
async function seen(url: string) {
  const [a, b] = await rpc(url, 'eth_accounts');
  return {
    block: await rpc(url, 'eth_blockNumber'),
    pool: await rpc(url, 'txpool_status'),
    content: await rpc(url, 'txpool_content'),
    balances: [await rpc(url, 'eth_getBalance', [a, 'latest']), await rpc(url, 'eth_getBalance', [b, 'pending'])],
    nonce: await rpc(url, 'eth_getTransactionCount', [a, 'pending']),
    counters: await counters(url),
  };
}

it('leaves the chain, the pool and the counters as a start without it does; one debug line says what it ran', async () => {
  const said: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void said.push(line) });
  const warm = await startTestNode({ warmUp: true, logger });
  nodes.push(warm);
  const cold = await startTestNode({ warmUp: false });
  nodes.push(cold);

  const before = await seen(warm.url);
  expect(before).toEqual(await seen(cold.url));
  expect(before.block).toBe('0x0');
  expect(before.pool).toEqual({ pending: '0x0', queued: '0x0' });
  expect(before.counters.wharf_blocks_sealed_total).toBe('0');

  const entries = said.map((l) => JSON.parse(l));
  const warmUps = entries.filter((e) => /warm/.test(e.msg));
  expect(warmUps).toHaveLength(1);
  expect(warmUps[0]).toMatchObject({ level: 20, msg: 'warmed up the transfer path', transfers: 1000, blocks: 10 });

  // The first transfer the node takes is its chain's first (block 1, nonce 0).
  const [from, to] = await rpc(warm.url, 'eth_accounts');
  const hash = await rpc(warm.url, 'eth_sendTransaction', [{ from, to, value: '0x1' }]);
  const receipt = await waitFor(() => rpc(warm.url, 'eth_getTransactionReceipt', [hash]));
  expect(receipt).toMatchObject({ status: '0x1', blockNumber: '0x1', transactionIndex: '0x0' });
  expect(await rpc(warm.url, 'eth_getTransactionByHash', [hash])).toMatchObject({ nonce: '0x0' });
  expect(BigInt(await rpc(warm.url, 'eth_getBalance', [to, 'latest']))).toBe(BigInt(before.balances[1]) + 1n);
  expect((await counters(warm.url)).wharf_blocks_sealed_total).toBe('1');
});

it('runs only when asked: a node started without it logs nothing of it', async () => {
  const said: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void said.push(line) });
  nodes.push(await startTestNode({ logger }));
  expect(said.map((l) => JSON.parse(l).msg)).toContain('JSON-RPC listening (HTTP and WebSocket)');
  expect(said.filter((l) => /warm/.test(l))).toEqual([]);
});
