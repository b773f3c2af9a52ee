/**
 * callTracer over a transaction that makes every kind of call (the conformance chain has none):
 * CALL with value, STATICCALL (no `value`; a pure function's reverting call too), DELEGATECALL (`from` the calling contract, `to` the
 * code's), CREATE, a reverting inner call (`error`, `output`, `revertReason`), and logs placed by
 * `position` among the calls, those of the reverted call dropped, as geth's callTracer does.
 */
import { createRequire } from 'node:module';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  http,
  type Hex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestNode, type TestNode } from './node-helpers.js';

const require = createRequire(import.meta.url);
const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Child {
  event Hi(uint256 v);
  uint256 public x;
  function ping(uint256 v) external payable returns (uint256) { emit Hi(v); return v + 1; }
  function peek() external view returns (uint256) { return x; }
  // payable: a delegate call carries the caller's value.
  function setX(uint256 v) external payable { x = v; }
  function boom() external pure { revert("boom"); }
}
contract Parent {
  event Before(uint256 a);
  event After(uint256 b);
  uint256 public x;
  function run(Child c) external payable returns (uint256) {
    emit Before(1);
    uint256 r = c.ping{value: msg.value}(41);
    c.peek();
    (bool ok, ) = address(c).delegatecall(abi.encodeCall(Child.setX, (7)));
    require(ok);
    try c.boom() {} catch {}
    new Child();
    emit After(r);
    return r;
  }
}`;

function compile() {
  const solc = require('solc');
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'T.sol': { content: SOURCE } },
        settings: { evmVersion: 'prague', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
      }),
    ),
  );
  const get = (n: string) => ({
    abi: out.contracts['T.sol'][n].abi,
    bytecode: `0x${out.contracts['T.sol'][n].evm.bytecode.object}` as Hex,
  });
  return { child: get('Child'), parent: get('Parent') };
}

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ blockTime: 0 });
});
afterAll(async () => {
  await node?.stop();
});

describe('callTracer call tree', () => {
  it('has every kind of call, in geth shape', async () => {
    const chain = defineChain({
      id: 31337,
      name: 'wharf',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const from = node.accounts[0].address;
    const wallet = createWalletClient({ chain, transport: http(node.url), account: from });
    const pub = createPublicClient({ chain, transport: http(node.url) });
    const { child, parent } = compile();
    const deploy = async (c: { abi: any; bytecode: Hex }) =>
      (await pub.waitForTransactionReceipt({ hash: await wallet.deployContract(c) })).contractAddress!;
    const c = (await deploy(child)).toLowerCase();
    const p = (await deploy(parent)).toLowerCase();
    const input = encodeFunctionData({ abi: parent.abi, functionName: 'run', args: [c] });
    const hash = await wallet.sendTransaction({ to: p as Hex, data: input, value: 5n });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');

    const top = await rpc(node.url, 'debug_traceTransaction', [
      hash,
      { tracer: 'callTracer', tracerConfig: { withLog: true } },
    ]);
    expect(top).toMatchObject({ type: 'CALL', from, to: p, value: '0x5', input });
    expect(top.gasUsed).toBe(`0x${receipt.gasUsed.toString(16)}`);
    expect(top.output).toBe(`0x${(42).toString(16).padStart(64, '0')}`);
    const types = top.calls.map((f: any) => f.type);
    // boom() is pure: Solidity calls it with STATICCALL.
    expect(types).toEqual(['CALL', 'STATICCALL', 'DELEGATECALL', 'STATICCALL', 'CREATE']);
    const [ping, peek, delegate, boom, create] = top.calls;
    expect(ping).toMatchObject({ from: p, to: c, value: '0x5' });
    expect(ping.logs).toHaveLength(1);
    expect(ping.logs[0]).toMatchObject({ address: c, position: '0x0' });
    expect(peek.value).toBeUndefined();
    expect(peek).toMatchObject({ from: p, to: c });
    // DELEGATECALL: from the contract that delegates, to the code's address, the caller's value.
    expect(delegate).toMatchObject({ from: p, to: c, value: '0x5' });
    expect(delegate.output).toBeUndefined(); // nothing returned: left out, as geth
    expect(boom).toMatchObject({ error: 'execution reverted', revertReason: 'boom' });
    expect(boom.value).toBeUndefined();
    expect(boom.output).toMatch(/^0x08c379a0/);
    expect(create.to).toMatch(/^0x[0-9a-f]{40}$/);
    expect(create.output).toMatch(/^0x60/);
    for (const f of top.calls) {
      expect(BigInt(f.gasUsed)).toBeLessThanOrEqual(BigInt(f.gas));
      expect(Object.keys(f)).not.toContain('calls');
    }
    // The parent's logs: Before before any call, After after all five.
    expect(top.logs.map((l: any) => l.position)).toEqual(['0x0', '0x5']);
    // The receipt's logs are the tree's, in order.
    expect(receipt.logs.map((l) => l.address.toLowerCase())).toEqual([p, c, p]);

    const only = await rpc(node.url, 'debug_traceTransaction', [
      hash,
      { tracer: 'callTracer', tracerConfig: { onlyTopCall: true, withLog: true } },
    ]);
    expect(only.calls).toBeUndefined();
    expect(only.logs.map((l: any) => l.position)).toEqual(['0x0', '0x0']);

    // prestateTracer diffMode: the child's slot x was written by the delegate call into the
    // parent's storage, not the child's.
    const diff = await rpc(node.url, 'debug_traceTransaction', [
      hash,
      { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
    ]);
    expect(diff.post[p].storage).toEqual({
      [`0x${'0'.repeat(64)}`]: `0x${(7).toString(16).padStart(64, '0')}`,
    });
    expect(diff.post[c]?.storage).toBeUndefined();
    expect(Object.keys(diff.post)).toContain(create.to);
    expect(Object.keys(diff.pre)).not.toContain(create.to);
  });
});
