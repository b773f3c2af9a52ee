/**
 * Issue 29, finding 3: debug_traceBlockByNumber over stack-filling loops grew the heap to 4.35 GB
 * and killed the node. Now the struct logger honours its config (disableStack, disableStorage,
 * enableMemory, limit), a request's output is bounded (--rpc-trace-max-bytes, a block's traces
 * together) and so is its time (--rpc-evm-timeout); past either the answer is a clear error and
 * the node keeps running with its memory bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';
import { timedCall } from './security-helpers.js';

/** Initcode that returns `runtime` (PUSH2 len DUP1 PUSH1 10 PUSH0 CODECOPY PUSH0 RETURN). */
function deployCode(runtime: string): string {
  const len = runtime.length / 2;
  return `0x61${len.toString(16).padStart(4, '0')}80600a5f395ff3${runtime}`;
}
// PUSH32 2^256-1, DUP1 x1000 (a stack of 1,001 words), then JUMPDEST PUSH0 POP PUSH2 1033 JUMP.
const STACK_LOOP = `7f${'ff'.repeat(32)}${'80'.repeat(1000)}5b5f50610409` + '56';
// PUSH1 42 PUSH1 1 SSTORE PUSH1 1 SLOAD STOP
const STORAGE = '602a60015560015400';

let node: TestNode;
let from: string;

/** The receipt once its block is sealed (a pre-confirmed one is not traceable yet). */
async function sealedReceipt(hash: string): Promise<any> {
  return waitFor(async () => {
    const r = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
    if (!r) return undefined;
    return Number(r.blockNumber) <= Number(await rpc(node.url, 'eth_blockNumber')) ? r : undefined;
  });
}

async function send(tx: Record<string, string>): Promise<any> {
  return sealedReceipt(await rpc(node.url, 'eth_sendTransaction', [{ from, ...tx }]));
}

beforeAll(async () => {
  node = await startTestNode({ blockTime: 1 });
  from = node.accounts[0].address;
});
afterAll(() => node.stop());

describe('debug_trace* bounds', () => {
  it('refuses a block of stack-filling loops past 64 MiB, and the node keeps running with bounded memory', async () => {
    const loop = (await send({ data: deployCode(STACK_LOOP), gas: '0x100000' })).contractAddress;
    // Three looping transactions, sent one after the other at once so they share a block.
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++)
      hashes.push(await rpc(node.url, 'eth_sendTransaction', [{ from, to: loop, gas: '0x989680' }]));
    const receipts = await Promise.all(hashes.map((h) => sealedReceipt(h)));
    const block = receipts[2].blockNumber;
    const rssBefore = process.memoryUsage().rss;
    const traced = await timedCall(node.url, 'debug_traceBlockByNumber', [block, {}]);
    expect(traced.error).toEqual({
      code: -32000,
      message:
        'trace output exceeds 67108864 bytes (--rpc-trace-max-bytes): trace fewer transactions, or pass disableStack, disableStorage or a limit',
    });
    // The first loop of the block: no untraced loop runs before it.
    const first = [...receipts].sort((a, b) => Number(a.transactionIndex) - Number(b.transactionIndex))[0];
    const one = await timedCall(node.url, 'debug_traceTransaction', [first.transactionHash]);
    expect(one.error?.message).toMatch(/^trace output exceeds 67108864 bytes/);
    // Without the stack each step is small, but 10M gas of loop is still more than the time allows.
    const slow = await timedCall(node.url, 'debug_traceTransaction', [
      hashes[0],
      { disableStack: true, limit: 10 },
    ]);
    expect(slow.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 5s)' });
    expect(slow.ms).toBeLessThan(6_500);
    // The node still answers, and the attack left no gigabytes behind.
    expect(await rpc(node.url, 'eth_blockNumber')).toMatch(/^0x/);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
  }, 60_000);

  it('honours limit, disableStack, disableStorage and enableMemory', async () => {
    const store = (await send({ data: deployCode(STORAGE), gas: '0x100000' })).contractAddress;
    const receipt = await send({ to: store, gas: '0x100000' });
    const full = await rpc(node.url, 'debug_traceTransaction', [receipt.transactionHash]);
    expect(full.structLogs.map((l: any) => l.op)).toEqual([
      'PUSH1',
      'PUSH1',
      'SSTORE',
      'PUSH1',
      'SLOAD',
      'STOP',
    ]);
    const slot = `${'0'.repeat(63)}1`;
    const value = `${'0'.repeat(62)}2a`;
    expect(full.structLogs[2].storage).toEqual({ [slot]: value });
    expect(full.structLogs[4].storage).toEqual({ [slot]: value });
    expect(full.structLogs[2].stack).toEqual(['0x2a', '0x1']);
    expect(full.structLogs[0].memory).toBeUndefined();

    const bare = await rpc(node.url, 'debug_traceTransaction', [
      receipt.transactionHash,
      { disableStack: true, disableStorage: true, limit: 3 },
    ]);
    expect(bare.structLogs).toHaveLength(3);
    expect(bare.structLogs[2]).toEqual({
      pc: 4,
      op: 'SSTORE',
      gas: expect.any(Number),
      gasCost: expect.any(Number),
      depth: 1,
    });

    // The deployment copies its runtime into memory: the RETURN step shows it, one 32-byte word.
    const deploy = await send({ data: deployCode(STORAGE), gas: '0x100000' });
    const withMemory = await rpc(node.url, 'debug_traceTransaction', [
      deploy.transactionHash,
      { enableMemory: true },
    ]);
    const ret = withMemory.structLogs.find((l: any) => l.op === 'RETURN');
    expect(ret.memory).toEqual([STORAGE.padEnd(64, '0')]);

    const bad = await timedCall(node.url, 'debug_traceTransaction', [receipt.transactionHash, { limit: -1 }]);
    expect(bad.error).toEqual({
      code: -32602,
      message: 'invalid argument 1 (config): limit must be a whole number of at least 0',
    });
  }, 30_000);
});
