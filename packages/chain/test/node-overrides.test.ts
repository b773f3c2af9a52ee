/**
 * State overrides on eth_call and eth_estimateGas (geth's third parameter; viem's
 * `stateOverride`): balance, nonce, code, whole storage or some slots, and a moved precompile,
 * for that one request only. Malformed overrides are refused naming the field. And
 * eth_simulateV1's overrides that last one block: a blobBaseFee override is what BLOBBASEFEE
 * reads (the header keeps its own excess blob gas), and a precompile moved in one block is back
 * at its own address in the next, as geth simulates them.
 */
import { createPublicClient, http, pad, parseAbi, toHex } from 'viem';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rpc, rpcRaw, startTestNode, type TestNode } from './node-helpers.js';

const sender = '0xc000000000000000000000000000000000000000';
const target = '0xc100000000000000000000000000000000000000';
/** Returns storage slots 0 and 1 and its own balance: SLOAD(0), SLOAD(1), SELFBALANCE. */
const READER = '0x5f545f526001546020524760405260605ff3';
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

const word = (n: number | bigint) => pad(toHex(n)).slice(2);

describe('eth_call state overrides', () => {
  test('viem stateOverride: code, balance and slots apply to that call only', async () => {
    const client = createPublicClient({ transport: http(node.url) });
    const { data } = await client.call({
      account: sender,
      to: target,
      stateOverride: [
        {
          address: target,
          code: READER,
          balance: 1234n,
          stateDiff: [{ slot: pad('0x1'), value: pad('0x2a') }],
        },
      ],
    });
    expect(data).toBe(`0x${word(0)}${word(42)}${word(1234)}`);
    // Nothing stayed: the account has no code, so the call returns nothing.
    expect((await client.call({ account: sender, to: target })).data).toBeUndefined();
  });

  test("'state' replaces all storage, 'stateDiff' patches it", async () => {
    const base = { code: READER, stateDiff: { [pad('0x0')]: pad('0x7'), [pad('0x1')]: pad('0x8') } };
    const diff = await rpc(node.url, 'eth_call', [{ to: target }, 'latest', { [target]: base }]);
    expect(diff).toBe(`0x${word(7)}${word(8)}${word(0)}`);
    const replaced = await rpc(node.url, 'eth_call', [
      { to: target },
      'latest',
      { [target]: { code: READER, state: { [pad('0x1')]: pad('0x9') } } },
    ]);
    expect(replaced).toBe(`0x${word(0)}${word(9)}${word(0)}`);
  });

  test('a moved precompile answers at its new address, not its old one', async () => {
    const overrides = { [SHA256]: { movePrecompileToAddress: moved } };
    expect(await rpc(node.url, 'eth_call', [{ to: moved }, 'latest', overrides])).toBe(sha256OfEmpty);
    expect(await rpc(node.url, 'eth_call', [{ to: SHA256 }, 'latest', overrides])).toBe('0x');
    expect(await rpc(node.url, 'eth_call', [{ to: SHA256 }, 'latest'])).toBe(sha256OfEmpty);
  });

  test('eth_estimateGas runs on the overridden state (a balance to pay for the value, code to run)', async () => {
    const poor = '0xc200000000000000000000000000000000000000';
    const tx = { from: poor, to: target, value: '0x64', maxFeePerGas: '0x3b9aca00' };
    await expect(rpc(node.url, 'eth_estimateGas', [tx])).rejects.toThrow(/insufficient funds/);
    const rich = { [poor]: { balance: '0xde0b6b3a7640000' } };
    expect(await rpc(node.url, 'eth_estimateGas', [tx, 'latest', rich])).toBe('0x5208');
    // With code at the target, the estimate covers running it (SSTORE of a fresh slot).
    const store = '0x602a5f5500'; // SSTORE(0, 42)
    const withCode = { ...rich, [target]: { code: store } };
    expect(BigInt(await rpc(node.url, 'eth_estimateGas', [tx, 'latest', withCode]))).toBeGreaterThan(40_000n);
  });

  test('a Solidity-style read through viem readContract with an override', async () => {
    const client = createPublicClient({ transport: http(node.url) });
    // balanceOf(address) answered by code that returns slot 1 whatever the input.
    const abi = parseAbi(['function balanceOf(address) view returns (uint256)']);
    const code = '0x60015460005260206000f3';
    const value = await client.readContract({
      address: target,
      abi,
      functionName: 'balanceOf',
      args: [sender],
      stateOverride: [{ address: target, code, state: [{ slot: pad('0x1'), value: pad('0x539') }] }],
    });
    expect(value).toBe(1337n);
  });

  test('malformed overrides are refused naming the field; the node keeps serving', async () => {
    const bad: [unknown, RegExp][] = [
      ['nope', /invalid argument 2 \(stateOverrides\): expected an object/],
      [{ '0x12': {} }, /stateOverrides\)\.0x12: .*length/],
      [{ [target]: { balance: 'lots' } }, /\.balance: /],
      [{ [target]: { code: '0x600' } }, /\.code: hex string has odd length/],
      [{ [target]: { stateDiff: { '0x01': '0x02' } } }, /\.stateDiff: hex string has length 2, want 64/],
      [{ [target]: { balanse: '0x1' } }, /\.balanse: unknown field/],
      [{ [target]: { state: {}, stateDiff: {} } }, /both 'state' and 'stateDiff'/],
      [{ [target]: { movePrecompileToAddress: moved } }, /is not a precompile/],
    ];
    for (const [overrides, message] of bad) {
      const { json } = await rpcRaw(node.url, {
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_call',
        params: [{ to: target }, 'latest', overrides],
      });
      expect(json.error?.message, JSON.stringify(overrides)).toMatch(message);
    }
    const { json } = await rpcRaw(node.url, {
      jsonrpc: '2.0',
      id: 2,
      method: 'eth_call',
      params: [{ to: target }, 'latest', {}, { number: '0x1' }],
    });
    expect(json.error.message).toMatch(
      /invalid argument 3 \(blockOverrides\): block overrides are not supported/,
    );
    expect(await rpc(node.url, 'eth_chainId')).toMatch(/^0x/);
  });
});

describe('eth_simulateV1 overrides', () => {
  test('blobBaseFee: BLOBBASEFEE reads the override, and the default in the next block', async () => {
    const blocks = await rpc(node.url, 'eth_simulateV1', [
      {
        blockStateCalls: [
          {
            blockOverrides: { blobBaseFee: '0x1234' },
            stateOverrides: { [target]: { code: BLOB_BASE_FEE } },
            calls: [{ from: sender, to: target }],
          },
          { calls: [{ from: sender, to: target }] },
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
