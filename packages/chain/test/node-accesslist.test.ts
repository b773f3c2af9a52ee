/**
 * eth_createAccessList leaves out what geth leaves out: the sender, the created contract, and the
 * precompiles active in the block's fork; other accounts touched are listed. The dev chain runs
 * Prague, so 0x100 (P256VERIFY from Osaka on) is an ordinary account there.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { isPrecompile } from '../src/execution/precompiles.js';
import { rpc, startTestNode, type TestNode } from './node-helpers.js';

const touched = '0xc500000000000000000000000000000000000000';
/** STATICCALL(gas, to, 0, 0, 0, 0), result popped. */
const staticCall = (to: string) => `5f5f5f5f61${to}5afa50`;

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe('eth_createAccessList', () => {
  test('lists the accounts a creation touches, not the sender, itself or active precompiles', async () => {
    const config = await rpc(node.url, 'eth_config');
    expect(config.current.precompiles.BLS12_G1ADD).toBe('0x000000000000000000000000000000000000000b');
    expect(config.current.precompiles.P256VERIFY).toBeUndefined();
    // Init code: STATICCALL 0x100, SHA256 and BLS12_G1ADD, BALANCE of `touched`, STOP.
    const data = `0x${staticCall('0100')}${staticCall('0002')}${staticCall('000b')}73${touched.slice(2)}315000`;
    const from = node.accounts[0].address;
    const out = await rpc(node.url, 'eth_createAccessList', [{ from, data }, 'latest']);
    expect(out.accessList).toEqual([
      { address: '0x0000000000000000000000000000000000000100', storageKeys: [] },
      { address: touched, storageKeys: [] },
    ]);
  });

  test('the precompiles left out follow the fork', () => {
    const at = (hardfork: Hardfork) => new Common({ chain: Mainnet, hardfork });
    const p256 = '0x0000000000000000000000000000000000000100';
    const kzg = '0x000000000000000000000000000000000000000a';
    expect([Hardfork.Prague, Hardfork.Osaka].map((h) => isPrecompile(p256, at(h)))).toEqual([false, true]);
    expect([Hardfork.Shanghai, Hardfork.Cancun].map((h) => isPrecompile(kzg, at(h)))).toEqual([false, true]);
    expect(isPrecompile('0x0000000000000000000000000000000000000001', at(Hardfork.Chainstart))).toBe(true);
    expect(isPrecompile('0x0000000000000000000000000000000000000012', at(Hardfork.Osaka))).toBe(false);
  });
});
