/**
 * eth_simulateV1's logs as geth traces them: with traceTransfers, ERC-7528 Transfer logs for
 * value moved by calls, creates and SELFDESTRUCT, in execution order among the contract logs;
 * a failed frame's logs are dropped, and the block's log index never steps back (gaps where they
 * were). The execution-apis cases cover the self-destruct log and one gap; this covers the rest.
 */
import { getContractAddress, pad, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rpc, startTestNode, type TestNode } from './node-helpers.js';

const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const ETH = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const sender = '0xc000000000000000000000000000000000000000';
const logger = '0xc100000000000000000000000000000000000000'; // LOG0, then STOP
const reverter = '0xc200000000000000000000000000000000000000'; // LOG0, then REVERT
const main = '0xc300000000000000000000000000000000000000'; // calls reverter, then logger with 1 wei, then LOG0
const destructor = '0xc400000000000000000000000000000000000000'; // SELFDESTRUCT to beneficiary
const beneficiary = '0xc500000000000000000000000000000000000000';

const LOG0 = '60006000a0';
/** CALL(gas, to, value, 0, 0, 0, 0), result popped. */
const call = (to: string, value: number) =>
  `600060006000600060${toHex(value, { size: 1 }).slice(2)}73${to.slice(2)}5af150`;

const overrides = {
  [sender]: { balance: '0xde0b6b3a7640000' },
  [logger]: { code: `0x${LOG0}00` },
  [reverter]: { code: `0x${LOG0}60006000fd` },
  [main]: { code: `0x${call(reverter, 0)}${call(logger, 1)}${LOG0}00`, balance: '0x10' },
  [destructor]: { code: `0x73${beneficiary.slice(2)}ff`, balance: '0x5' },
};

const transfer = (from: string, to: string, value: bigint) => ({
  address: ETH,
  topics: [TRANSFER, pad(from as `0x${string}`), pad(to as `0x${string}`)],
  data: pad(toHex(value)),
});

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node?.stop();
});

async function simulate(calls: object[], traceTransfers: boolean) {
  const [block] = await rpc(node.url, 'eth_simulateV1', [
    { blockStateCalls: [{ stateOverrides: overrides, calls }], traceTransfers },
    'latest',
  ]);
  return block.calls.map((c: any) =>
    c.logs.map((l: any) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      logIndex: Number(l.logIndex),
      txIndex: Number(l.transactionIndex),
    })),
  );
}

describe('eth_simulateV1 logs', () => {
  test('traceTransfers: creates, nested calls and SELFDESTRUCT, in execution order, indexes past failed frames', async () => {
    const created = getContractAddress({ from: sender, nonce: 0n }).toLowerCase();
    const logs = await simulate(
      [
        { from: sender, nonce: '0x0', value: '0x7', input: '0x00' }, // a create with 7 wei
        { from: sender, to: main }, // the reverter's log takes index 1 and is dropped
        { from: sender, to: reverter }, // fails: its log takes index 5
        { from: sender, to: logger },
        { from: sender, to: destructor },
      ],
      true,
    );
    const log = (address: string) => ({ address, topics: [], data: '0x' });
    expect(logs).toEqual([
      [{ ...transfer(sender, created, 7n), logIndex: 0, txIndex: 0 }],
      [
        { ...transfer(main, logger, 1n), logIndex: 2, txIndex: 1 },
        { ...log(logger), logIndex: 3, txIndex: 1 },
        { ...log(main), logIndex: 4, txIndex: 1 },
      ],
      [],
      [{ ...log(logger), logIndex: 6, txIndex: 3 }],
      [{ ...transfer(destructor, beneficiary, 5n), logIndex: 7, txIndex: 4 }],
    ]);
  });

  test('without traceTransfers: contract logs only, with the same index gaps', async () => {
    const logs = await simulate(
      [
        { from: sender, to: main },
        { from: sender, to: reverter },
        { from: sender, to: logger },
      ],
      false,
    );
    expect(logs.map((c: any[]) => c.map((l) => [l.address, l.logIndex]))).toEqual([
      [
        [logger, 1],
        [main, 2],
      ],
      [],
      [[logger, 4]],
    ]);
  });
});
