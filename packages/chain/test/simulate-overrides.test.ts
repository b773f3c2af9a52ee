/**
 * eth_simulateV1's overrides that last one block: a blobBaseFee override is what BLOBBASEFEE
 * reads (the header keeps its own excess blob gas), and a precompile moved in one block is back
 * at its own address in the next, as geth simulates them.
 */
import { pad, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rpc, startTestNode, type TestNode } from './node-helpers.js';

const sender = '0xc000000000000000000000000000000000000000';
const reader = '0xc100000000000000000000000000000000000000';
/** BLOBBASEFEE PUSH0 MSTORE PUSH1 32 PUSH0 RETURN */
const BLOB_BASE_FEE = '0x4a5f5260205ff3';
const SHA256 = '0x0000000000000000000000000000000000000002';
const moved = '0x0000000000000000000000000000000000123456';
const sha256OfEmpty = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe('eth_simulateV1 overrides', () => {
  test('blobBaseFee: BLOBBASEFEE reads the override, and the default in the next block', async () => {
    const blocks = await rpc(node.url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            blockOverrides: { blobBaseFee: '0x1234' },
            stateOverrides: { [reader]: { code: BLOB_BASE_FEE } },
            calls: [{ from: sender, to: reader }],
          },
          { calls: [{ from: sender, to: reader }] },
        ],
      },
      'latest',
    ]);
    expect(blocks[0].calls[0].returnData).toBe(pad(toHex(0x1234)));
    expect(blocks[0].excessBlobGas).toBe(blocks[1].excessBlobGas);
    expect(blocks[1].calls[0].returnData).toBe(pad(toHex(1))); // the minimum blob base fee
  });

  test('movePrecompileToAddress lasts one block', async () => {
    const blocks = await rpc(node.url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            stateOverrides: { [SHA256]: { movePrecompileToAddress: moved } },
            calls: [
              { from: sender, to: moved },
              { from: sender, to: SHA256 },
            ],
          },
          {
            calls: [
              { from: sender, to: moved },
              { from: sender, to: SHA256 },
            ],
          },
        ],
      },
      'latest',
    ]);
    const returned = blocks.map((b: any) => b.calls.map((c: any) => c.returnData));
    expect(returned).toEqual([
      [sha256OfEmpty, '0x'],
      ['0x', sha256OfEmpty],
    ]);
  });
});
