/**
 * Issue 29, finding 2: eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1 with a
 * jump loop and 2^64 gas. Before: the call held the node's thread (no eth_blockNumber, no
 * flashblock, SIGTERM ignored). Now: gas capped (--rpc-gas-cap), time capped (--rpc-evm-timeout,
 * geth's `execution aborted (timeout = 5s)`), executed in slices so the node keeps answering and
 * publishing on time.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { defaultRpcLimits } from '../src/rpc/limits.js';
import { killChildNodes, startChildNode, startTestNode, type TestNode, tempDir } from './node-helpers.js';
import { flashblockLateness, timedCall, watchBlockNumber } from './security-helpers.js';

// JUMPDEST PUSH0 JUMP: an endless loop, as the initcode of a creation call.
const LOOP = { data: '0x5b5f56', gas: '0xfffffffffffffff0' };
const FROM = '0x00000000000000000000000000000000000000aa';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop();
});
afterEach(() => killChildNodes());

describe('EVM calls against a running node', () => {
  it("has geth's defaults: 50,000,000 gas, 5 s", () => {
    expect(defaultRpcLimits.gasCap).toBe(50_000_000n);
    expect(defaultRpcLimits.evmTimeoutMs).toBe(5_000);
  });

  it('keeps answering and publishing on time while jump loops run at latest and pending', async () => {
    const node = await startTestNode({ blockTime: 2 });
    nodes.push(node);
    // Let the builder settle into its rhythm.
    await new Promise((r) => setTimeout(r, 600));
    const before = await flashblockLateness(node.url);
    const watch = watchBlockNumber(node.url);
    const t0 = performance.now();
    const attacks = await Promise.all([
      timedCall(node.url, 'eth_call', [LOOP, 'latest']),
      timedCall(node.url, 'eth_call', [LOOP, 'pending']),
      timedCall(node.url, 'eth_estimateGas', [LOOP, 'latest']),
      timedCall(node.url, 'eth_createAccessList', [{ ...LOOP, from: FROM }, 'pending']),
      // No gas named: each call gets what is left of the 50M the request may use.
      timedCall(node.url, 'eth_simulateV1', [
        { blockStateCalls: [{ calls: [{ data: LOOP.data }, { data: LOOP.data }] }] },
        'latest',
      ]),
    ]);
    const wall = performance.now() - t0;
    const seen = await watch.stop();
    const after = await flashblockLateness(node.url);

    for (const a of attacks) {
      // A bounded error: capped at 50M gas it runs out of gas, or it runs out of time first.
      expect(a.status).toBe(200);
      const message = a.error?.message ?? JSON.stringify(a.result);
      expect(message).toMatch(/execution aborted \(timeout = 5s\)|out of gas|gas required exceeds allowance/);
      // estimateGas's tries and simulate's calls share one deadline: the whole request is bounded.
      expect(a.ms).toBeLessThan(6_500);
    }
    expect(wall).toBeLessThan(6_500);
    expect(seen.failures).toBe(0);
    expect(seen.answers).toBeGreaterThan(20);
    expect(seen.slowest).toBeLessThan(1_000);
    // About 25 flashblocks were published meanwhile, none more than 50 ms after its deadline.
    expect(after.total - before.total).toBeGreaterThanOrEqual(Math.floor(wall / 200) - 2);
    expect(after.over50ms - before.over50ms).toBe(0);
  }, 30_000);

  it("answers geth's timeout error when the gas is not capped (--rpc-gas-cap 0)", async () => {
    const node = await startTestNode({ blockTime: 2, limits: { ...defaultRpcLimits, gasCap: 0n } });
    nodes.push(node);
    const watch = watchBlockNumber(node.url);
    const [call, estimate] = await Promise.all([
      timedCall(node.url, 'eth_call', [LOOP, 'pending']),
      timedCall(node.url, 'eth_estimateGas', [LOOP]),
    ]);
    const seen = await watch.stop();
    for (const a of [call, estimate]) {
      expect(a.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 5s)' });
      expect(a.ms).toBeGreaterThan(4_900);
      expect(a.ms).toBeLessThan(6_500);
    }
    expect(seen.slowest).toBeLessThan(1_000);
  }, 30_000);

  it('lowers a larger gas to the cap (--rpc-gas-cap)', async () => {
    const node = await startTestNode({ limits: { ...defaultRpcLimits, gasCap: 1_000_000n } });
    nodes.push(node);
    const estimate = await timedCall(node.url, 'eth_estimateGas', [LOOP]);
    expect(estimate.error).toEqual({ code: -32000, message: 'gas required exceeds allowance (1000000)' });
    const call = await timedCall(node.url, 'eth_call', [LOOP, 'latest']);
    expect(call.error).toEqual({ code: -32000, message: 'out of gas' });
    // An ordinary call is untouched.
    const ok = await timedCall(node.url, 'eth_estimateGas', [{ from: FROM, to: FROM, value: '0x0' }]);
    expect(ok.result).toBe('0x5208');
  });

  it('stops on SIGTERM while a loop runs', async () => {
    const child = await startChildNode(tempDir(), 2);
    const pending = timedCall(child.url, 'eth_call', [LOOP, 'latest']).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    const t0 = performance.now();
    const exited = new Promise<number | null>((resolve) => child.child.on('exit', (code) => resolve(code)));
    child.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(2_000);
    await pending;
  }, 20_000);
});
