/**
 * callTracer and prestateTracer over the execution-apis chain (the conformance chain), every
 * transaction, field by field against what geth documents for them and what the node's own
 * reads say: the top call frame is the transaction (from, to or the created address, value,
 * gas = its gas limit, gasUsed = the receipt's, input, output = the deployed code of a create,
 * error iff the receipt failed; with withLog, the frames' logs in position order are the
 * receipt's logs); the prestate of a block's first transaction is the parent block's state
 * (balance, nonce, code, storage); in diffMode, the post side of a block's only transaction is
 * the block's state.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importChain } from '../src/index.js';
import { rpc, startTestNode, type TestNode, tempDir } from './node-helpers.js';

const tests = path.resolve(import.meta.dirname, '../../../../shared/conformance/execution-apis/tests');
const have = fs.existsSync(path.join(tests, 'chain.rlp'));

interface Frame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas: string;
  gasUsed: string;
  input: string;
  output?: string;
  error?: string;
  calls?: Frame[];
  logs?: { address: string; topics: string[]; data: string; position: string }[];
}

/** A frame's logs and its calls' logs, in the order they were emitted (geth's `position`). */
function flatLogs(f: Frame): { address: string; topics: string[]; data: string }[] {
  const out: { address: string; topics: string[]; data: string }[] = [];
  const calls = f.calls ?? [];
  const logs = f.logs ?? [];
  let li = 0;
  for (let ci = 0; ci <= calls.length; ci++) {
    while (li < logs.length && Number(logs[li].position) === ci) {
      const { address, topics, data } = logs[li++];
      out.push({ address, topics, data });
    }
    if (ci < calls.length) out.push(...flatLogs(calls[ci]));
  }
  return out;
}

describe.skipIf(!have)('named tracers over the conformance chain', () => {
  let node: TestNode;
  const txs: { hash: string; block: bigint; index: number; count: number }[] = [];

  beforeAll(async () => {
    const dataDir = tempDir();
    await importChain({
      dataDir,
      genesisPath: path.join(tests, 'genesis.json'),
      chainPath: path.join(tests, 'chain.rlp'),
    });
    node = await startTestNode({ dataDir, mining: false });
    const head = BigInt(await rpc(node.url, 'eth_blockNumber', []));
    for (let n = 1n; n <= head; n++) {
      const b = await rpc(node.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
      for (const [index, hash] of (b.transactions as string[]).entries())
        txs.push({ hash, block: n, index, count: b.transactions.length });
    }
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('callTracer: the top frame is the transaction, logs are the receipt', async () => {
    expect(txs.length).toBeGreaterThan(10);
    let creates = 0;
    let withCalls = 0;
    for (const t of txs) {
      const tx = await rpc(node.url, 'eth_getTransactionByHash', [t.hash]);
      const receipt = await rpc(node.url, 'eth_getTransactionReceipt', [t.hash]);
      const f: Frame = await rpc(node.url, 'debug_traceTransaction', [
        t.hash,
        { tracer: 'callTracer', tracerConfig: { withLog: true } },
      ]);
      const where = `${t.hash} (block ${t.block})`;
      expect(f.from, where).toBe(tx.from);
      expect(f.gas, where).toBe(tx.gas);
      expect(f.gasUsed, where).toBe(receipt.gasUsed);
      expect(f.input, where).toBe(tx.input);
      expect(f.value, where).toBe(tx.value);
      const failed = receipt.status === '0x0';
      expect(f.error !== undefined, where).toBe(failed);
      if (tx.to) {
        expect(f.type, where).toBe('CALL');
        expect(f.to, where).toBe(tx.to);
      } else {
        expect(f.type, where).toBe('CREATE');
        if (!failed) {
          creates++;
          expect(f.to, where).toBe(receipt.contractAddress);
          const code = await rpc(node.url, 'eth_getCode', [receipt.contractAddress, receipt.blockNumber]);
          expect(f.output ?? '0x', where).toBe(code);
        } else expect(f.to, where).toBeUndefined();
      }
      if (f.calls?.length) withCalls++;
      // geth leaves out what is empty.
      if (f.output !== undefined) expect(f.output, where).not.toBe('0x');
      if (!failed)
        expect(flatLogs(f), where).toEqual(
          receipt.logs.map((l: any) => ({ address: l.address, topics: l.topics, data: l.data })),
        );
      const top: Frame = await rpc(node.url, 'debug_traceTransaction', [
        t.hash,
        { tracer: 'callTracer', tracerConfig: { onlyTopCall: true } },
      ]);
      const { calls: _calls, logs: _logs, ...frame } = f;
      expect(top, where).toEqual(frame);
    }
    expect(creates).toBeGreaterThan(0);
    console.log(`callTracer: ${txs.length} transactions, ${creates} creates, ${withCalls} with inner calls`);
  }, 120_000);

  it('prestateTracer: a block first transaction sees the parent state; its last one leaves the block state (diffMode)', async () => {
    let checkedPre = 0;
    let checkedPost = 0;
    // The first and the last transaction of each block: those two have a state to compare with.
    for (const t of txs.filter((x) => x.index === 0 || x.index === x.count - 1)) {
      const parent = `0x${(t.block - 1n).toString(16)}`;
      const block = `0x${t.block.toString(16)}`;
      const tx = await rpc(node.url, 'eth_getTransactionByHash', [t.hash]);
      const where = `${t.hash} (block ${t.block})`;
      const pre = await rpc(node.url, 'debug_traceTransaction', [t.hash, { tracer: 'prestateTracer' }]);
      expect(Object.keys(pre), where).toContain(tx.from);
      if (t.index === 0) {
        checkedPre++;
        for (const [address, a] of Object.entries<any>(pre)) {
          expect(a.balance, `${where} ${address}`).toBe(
            await rpc(node.url, 'eth_getBalance', [address, parent]),
          );
          const nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [address, parent]));
          if (nonce) expect(a.nonce, `${where} ${address}`).toBe(nonce);
          else expect(a.nonce, `${where} ${address}`).toBeUndefined();
          const code = await rpc(node.url, 'eth_getCode', [address, parent]);
          expect(a.code ?? '0x', `${where} ${address}`).toBe(code);
          for (const [slot, v] of Object.entries<string>(a.storage ?? {}))
            expect(v, `${where} ${address} ${slot}`).toBe(
              await rpc(node.url, 'eth_getStorageAt', [address, slot, parent]),
            );
        }
      }
      const diff = await rpc(node.url, 'debug_traceTransaction', [
        t.hash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ]);
      expect(Object.keys(diff).sort()).toEqual(['post', 'pre']);
      // The sender paid for gas (and its nonce moved): it changed.
      expect(Object.keys(diff.post), where).toContain(tx.from);
      expect(diff.post[tx.from].nonce, where).toBe(Number(tx.nonce) + 1);
      // After the last transaction the block still pays its miner (PoW rewards) and withdrawals.
      const b = await rpc(node.url, 'eth_getBlockByNumber', [block, false]);
      const paidAfter = new Set<string>([b.miner, ...(b.withdrawals ?? []).map((w: any) => w.address)]);
      for (const [address, a] of Object.entries<any>(diff.post)) {
        const before = diff.pre[address];
        // pre holds what changed, as it was; an account in post that is not in pre was created.
        if (before && a.balance !== undefined)
          expect(before.balance, `${where} ${address}`).not.toBe(a.balance);
        if (t.index !== t.count - 1 || paidAfter.has(address)) continue;
        // The block's last transaction leaves the block's state.
        if (a.balance !== undefined)
          expect(a.balance, `${where} ${address}`).toBe(
            await rpc(node.url, 'eth_getBalance', [address, block]),
          );
        if (a.nonce !== undefined)
          expect(a.nonce, `${where} ${address}`).toBe(
            Number(await rpc(node.url, 'eth_getTransactionCount', [address, block])),
          );
        if (a.code !== undefined)
          expect(a.code, `${where} ${address}`).toBe(await rpc(node.url, 'eth_getCode', [address, block]));
        for (const [slot, v] of Object.entries<string>(a.storage ?? {}))
          expect(v, `${where} ${address} ${slot}`).toBe(
            await rpc(node.url, 'eth_getStorageAt', [address, slot, block]),
          );
      }
      if (t.index === t.count - 1) checkedPost++;
    }
    expect(checkedPre).toBeGreaterThan(0);
    expect(checkedPost).toBeGreaterThan(0);
  }, 120_000);

  it('debug_traceCall and debug_traceBlockByNumber take the named tracers; an unknown one is refused', async () => {
    const t = txs.find((x) => x.index === 0)!;
    const block = `0x${t.block.toString(16)}`;
    const traced = await rpc(node.url, 'debug_traceBlockByNumber', [block, { tracer: 'callTracer' }]);
    expect(traced[0].txHash).toBe(t.hash);
    expect(traced[0].result.type).toMatch(/^(CALL|CREATE)$/);
    const tx = await rpc(node.url, 'eth_getTransactionByHash', [t.hash]);
    const call = await rpc(node.url, 'debug_traceCall', [
      { from: tx.from, to: tx.to ?? undefined, data: tx.input, value: tx.value },
      `0x${(t.block - 1n).toString(16)}`,
      { tracer: 'callTracer' },
    ]);
    expect(call.from).toBe(tx.from);
    expect(call.input).toBe(tx.input);
    await expect(
      rpc(node.url, 'debug_traceTransaction', [t.hash, { tracer: 'fourByteTracer' }]),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/not supported/) });
  });
});
