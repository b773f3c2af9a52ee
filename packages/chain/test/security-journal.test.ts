/**
 * Issue 29, low finding (chain part): the pool journal had no `error` listener, so a full disk
 * killed the node at its next write. Now a failed write is logged and counted
 * (wharf_txpool_journal_errors_total) and the node keeps serving; the transactions stay in the
 * pool and are pre-confirmed and sealed as usual. The fault: every journal write goes to
 * /dev/full (ENOSPC), in a node of its own process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { killChildNodes, rpc, startChildNode, tempDir, waitFor } from './node-helpers.js';

afterEach(() => killChildNodes());

async function journalErrors(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^wharf_txpool_journal_errors_total (\d+)/m.exec(text)?.[1]);
}

describe('txpool journal on a full disk', () => {
  it('logs and counts the failed writes, and keeps serving', async () => {
    const node = await startChildNode(tempDir(), 1, { WHARF_TEST_JOURNAL_FULL: '1' });
    let exited = false;
    node.child.on('exit', () => {
      exited = true;
    });
    // The start-up rotation already failed: counted, and the node serves.
    expect(await journalErrors(node.url)).toBeGreaterThanOrEqual(1);
    const [from] = await rpc(node.url, 'eth_accounts');
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++)
      hashes.push(await rpc(node.url, 'eth_sendTransaction', [{ from, to: from, value: '0x1' }]));
    for (const h of hashes)
      expect((await waitFor(() => rpc(node.url, 'eth_getTransactionReceipt', [h]))).status).toBe('0x1');
    // A transaction that stays in the pool (a nonce ahead: queued) is appended once held
    // (--pool-journal-delay; pre-confirmed ones are not, decision 0490): that write fails too,
    // more errors, and still alive.
    const before = await journalErrors(node.url);
    await rpc(node.url, 'eth_sendTransaction', [{ from, to: from, value: '0x1', nonce: '0x64' }]);
    await waitFor(async () => ((await journalErrors(node.url)) > before ? true : undefined));
    expect(await rpc(node.url, 'eth_blockNumber')).toMatch(/^0x/);
    expect(exited).toBe(false);
  }, 30_000);
});
