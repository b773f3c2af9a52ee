/**
 * Forking (--fork-url): node A, a local wharf node, holds a contract with storage and balances;
 * node B forks A at block N. B answers A's state at N and A's blocks up to N, builds its own
 * blocks on top (A does not change), keeps what it read so that it restarts and answers without
 * A, and a read it cannot answer without A fails at once with an error naming the fork URL.
 * Decision: docs/decisions/0144-fork-reads.md.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestClient, encodeFunctionData, getContractAddress, http as viemHttp } from 'viem';
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore } from '../src/storage/chainStore.js';
import { ForkSource } from '../src/storage/forkSource.js';
import { compileStore } from './node-contract.js';
import { rpc, startTestNode, type TestNode, tempDir, waitFor } from './node-helpers.js';

const nodes: TestNode[] = [];
afterAll(async () => {
  for (const n of nodes) await n.stop().catch(() => {});
});

const X = '0x00000000000000000000000000000000000f0001';
const Y = '0x00000000000000000000000000000000000f0002';
const NEVER_READ = '0x00000000000000000000000000000000000f0003';
const ETH = 10n ** 18n;
const hex = (n: bigint) => `0x${n.toString(16)}`;
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;

async function send(url: string, tx: Record<string, string>): Promise<any> {
  const hash = await rpc(url, 'eth_sendTransaction', [tx]);
  return waitFor(() =>
    rpc(url, 'eth_getTransactionReceipt', [hash]).then((r) => r?.blockHash !== `0x${'0'.repeat(64)}` && r),
  );
}

describe('--fork-url', () => {
  it('reads A at block N, builds on top without changing A, restarts without A', async () => {
    const { abi, bytecode } = compileStore();
    const a = await startTestNode({ blockTime: 0, chainId: 4242n });
    nodes.push(a);
    const from = a.accounts[0].address;
    const deployed = await send(a.url, { from, data: bytecode });
    const store = deployed.contractAddress as string;
    const set = (v: bigint) => encodeFunctionData({ abi, functionName: 'set', args: [v] });
    const set42 = await send(a.url, { from, to: store, data: set(42n) });
    await send(a.url, { from, to: X, value: hex(ETH) });
    await send(a.url, { from, to: Y, value: hex(3n * ETH) });
    const n = BigInt(await rpc(a.url, 'eth_blockNumber'));
    const aBlockN = await rpc(a.url, 'eth_getBlockByNumber', [hex(n), false]);
    // A moves on after N: B must not see it.
    await send(a.url, { from, to: store, data: set(99n) });

    const dataDir = tempDir();
    const b = await startTestNode({ blockTime: 0, dataDir, fork: { url: a.url, blockNumber: n } });
    nodes.push(b);
    expect(BigInt(await rpc(b.url, 'eth_chainId'))).toBe(4242n);
    // The fork block is A's; B's first block on top funds its dev accounts.
    expect(BigInt(await rpc(b.url, 'eth_blockNumber'))).toBe(n + 1n);
    const bBlockN = await rpc(b.url, 'eth_getBlockByNumber', [hex(n), false]);
    expect(bBlockN.hash).toBe(aBlockN.hash);
    expect((await rpc(b.url, 'eth_getBlockByNumber', [hex(n + 1n), false])).parentHash).toBe(aBlockN.hash);

    // A's state at N, read through.
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(42n));
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [X, 'latest']))).toBe(ETH);
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [Y, 'pending']))).toBe(3n * ETH);
    expect(await rpc(b.url, 'eth_getCode', [store, 'latest'])).toBe(
      await rpc(a.url, 'eth_getCode', [store, 'latest']),
    );
    const value = encodeFunctionData({ abi, functionName: 'value' });
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(42n));
    // A's blocks and transactions below the fork point.
    const aBlock1 = await rpc(a.url, 'eth_getBlockByNumber', ['0x1', true]);
    expect(await rpc(b.url, 'eth_getBlockByNumber', ['0x1', true])).toEqual(aBlock1);
    expect(await rpc(b.url, 'eth_getBlockByHash', [aBlock1.hash, false])).toMatchObject({ number: '0x1' });
    const deployTx = await rpc(b.url, 'eth_getTransactionByHash', [deployed.transactionHash]);
    expect(deployTx).toMatchObject({ hash: deployed.transactionHash, blockNumber: deployed.blockNumber });
    expect(await rpc(b.url, 'eth_getTransactionReceipt', [deployed.transactionHash])).toMatchObject({
      contractAddress: store,
      status: '0x1',
    });

    // B transacts on top: its own state, A unchanged.
    await send(b.url, { from, to: store, data: set(7n) });
    await send(b.url, { from, to: X, value: hex(ETH) });
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(7n));
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [X, 'latest']))).toBe(2n * ETH);
    const afterSeven = await rpc(b.url, 'eth_blockNumber');
    // A slot set to zero reads zero, not the remote's value.
    await send(b.url, { from, to: store, data: set(0n) });
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(0n));
    // A revert to before a write puts back this node's zero, not the remote's value.
    const snap = await rpc(b.url, 'evm_snapshot');
    await send(b.url, { from, to: store, data: set(9n) });
    expect(await rpc(b.url, 'evm_revert', [snap])).toBe(true);
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(0n));
    // Past blocks of B and the fork block itself.
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', afterSeven])).toBe(word(7n));
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', hex(n)])).toBe(word(42n));
    expect(await rpc(a.url, 'eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(99n));
    expect(BigInt(await rpc(a.url, 'eth_getBalance', [X, 'latest']))).toBe(ETH);
    // State below the fork block is the remote's at that block.
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', deployed.blockNumber])).toBe(word(0n));
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', set42.blockNumber])).toBe(word(42n));
    expect(await rpc(b.url, 'eth_getCode', [store, hex(n - 1n)])).toBe(
      await rpc(a.url, 'eth_getCode', [store, 'latest']),
    );
    // eth_getProof: an account not written since the fork is proved by the remote at the fork
    // block; one written since by this node's trie, against its own block's root.
    expect(await rpc(b.url, 'eth_getProof', [Y, [], 'latest'])).toEqual(
      await rpc(a.url, 'eth_getProof', [Y, [], hex(n)]),
    );
    const proof = await rpc(b.url, 'eth_getProof', [store, ['0x0', '0x1'], 'latest']);
    expect(proof.storageProof.map((s: { value: string }) => s.value)).toEqual(['0x0', '0x0']);
    expect(proof.accountProof.length).toBeGreaterThan(0);
    const bHead = await rpc(b.url, 'eth_getBlockByNumber', ['latest', false]);

    // Restart without A: what B read or wrote is answered from its data directory.
    await b.stop({ keepData: true });
    await a.stop();
    const b2 = await startTestNode({ blockTime: 0, dataDir });
    nodes.push(b2);
    expect(await rpc(b2.url, 'eth_getBlockByNumber', ['latest', false])).toEqual(bHead);
    expect(await rpc(b2.url, 'eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(0n));
    expect(await rpc(b2.url, 'eth_getStorageAt', [store, '0x0', hex(n)])).toBe(word(42n));
    expect(BigInt(await rpc(b2.url, 'eth_getBalance', [X, 'latest']))).toBe(2n * ETH);
    expect(BigInt(await rpc(b2.url, 'eth_getBalance', [Y, 'latest']))).toBe(3n * ETH);
    expect(await rpc(b2.url, 'eth_getBlockByNumber', ['0x1', true])).toEqual(aBlock1);
    expect((await rpc(b2.url, 'eth_getTransactionByHash', [deployed.transactionHash])).blockNumber).toBe(
      deployed.blockNumber,
    );
    // B keeps building.
    await send(b2.url, { from, to: store, data: set(5n) });
    expect(await rpc(b2.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(5n));

    // What B never read needs A: a clear error naming the fork URL, at once.
    const started = Date.now();
    await expect(rpc(b2.url, 'eth_getBalance', [NEVER_READ, 'latest'])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining(`fork remote unreachable: ${a.url}`),
    });
    // A transaction hash this node does not know could be one of A's blocks: A must answer.
    await expect(rpc(b2.url, 'eth_getTransactionByHash', [`0x${'ab'.repeat(32)}`])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining(a.url),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The node keeps serving.
    expect(BigInt(await rpc(b2.url, 'eth_getBalance', [X, 'latest']))).toBe(2n * ETH);
  }, 120_000);

  it('anvil_reset: back to the fork point, onto another block, onto another remote', async () => {
    const { abi, bytecode } = compileStore();
    const set = (v: bigint) => encodeFunctionData({ abi, functionName: 'set', args: [v] });
    const value = encodeFunctionData({ abi, functionName: 'value' });
    const a = await startTestNode({ blockTime: 0, chainId: 4242n });
    nodes.push(a);
    const from = a.accounts[0].address;
    const store = (await send(a.url, { from, data: bytecode })).contractAddress as string;
    await send(a.url, { from, to: store, data: set(42n) });
    await send(a.url, { from, to: X, value: hex(ETH) });
    const n1 = BigInt(await rpc(a.url, 'eth_blockNumber'));
    await send(a.url, { from, to: store, data: set(99n) });
    const n2 = BigInt(await rpc(a.url, 'eth_blockNumber'));
    const aBlockN2 = await rpc(a.url, 'eth_getBlockByNumber', [hex(n2), false]);

    const dataDir = tempDir();
    const b = await startTestNode({ blockTime: 0, dataDir, fork: { url: a.url, blockNumber: n1 } });
    nodes.push(b);
    const dev = b.accounts[0].address;
    const devBalance = BigInt(await rpc(b.url, 'eth_getBalance', [dev, 'latest']));
    // B's own changes on top of the fork: a transaction, a transfer, a test method, a pooled transaction.
    const set7 = await send(b.url, { from, to: store, data: set(7n) });
    await send(b.url, { from, to: Y, value: hex(2n * ETH) });
    await rpc(b.url, 'anvil_setBalance', [X, hex(5n * ETH)]);
    await rpc(b.url, 'evm_setAutomine', [false]);
    const pooled = await rpc(b.url, 'eth_sendTransaction', [{ from, to: Y, value: '0x1' }]);
    await rpc(b.url, 'evm_setAutomine', [true]);
    await waitFor(async () => (await rpc(b.url, 'eth_getTransactionReceipt', [pooled]))?.blockNumber);
    expect(BigInt(await rpc(b.url, 'eth_blockNumber'))).toBeGreaterThan(n1 + 3n);

    // No parameters: back to the fork point, B's blocks, state and pool gone.
    await rpc(b.url, 'evm_setAutomine', [false]);
    const stillPooled = await rpc(b.url, 'eth_sendTransaction', [{ from, to: Y, value: '0x2' }]);
    expect(await rpc(b.url, 'anvil_reset', [])).toBe(null);
    // The fork block, and the first block on top funding the dev accounts again (as at the start).
    expect(BigInt(await rpc(b.url, 'eth_blockNumber'))).toBe(n1 + 1n);
    for (const tag of ['latest', 'pending']) {
      expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, tag])).toBe(word(42n));
      expect(BigInt(await rpc(b.url, 'eth_getBalance', [X, tag]))).toBe(ETH);
      expect(BigInt(await rpc(b.url, 'eth_getBalance', [Y, tag]))).toBe(0n);
      expect(BigInt(await rpc(b.url, 'eth_getBalance', [dev, tag]))).toBe(devBalance);
    }
    expect(await rpc(b.url, 'eth_getTransactionByHash', [set7.transactionHash])).toBe(null);
    expect(await rpc(b.url, 'eth_getTransactionByHash', [stillPooled])).toBe(null);
    expect(await rpc(b.url, 'eth_getBlockByNumber', [hex(n1 + 2n), false])).toBe(null);
    // Built on again from there.
    await rpc(b.url, 'evm_setAutomine', [true]);
    await send(b.url, { from, to: store, data: set(8n) });
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(8n));
    expect(BigInt(await rpc(b.url, 'eth_blockNumber'))).toBe(n1 + 2n);
    // viem's reset() sends neither a URL nor a block: the fork point too (not A's latest).
    await createTestClient({ mode: 'anvil', transport: viemHttp(b.url) }).reset();
    expect(BigInt(await rpc(b.url, 'eth_blockNumber'))).toBe(n1 + 1n);
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(42n));

    // Another block of the same remote (Hardhat's shape, hardhat_reset): A's state there.
    expect(
      await rpc(b.url, 'hardhat_reset', [{ forking: { jsonRpcUrl: a.url, blockNumber: Number(n2) } }]),
    ).toBe(true);
    expect(BigInt(await rpc(b.url, 'eth_blockNumber'))).toBe(n2 + 1n);
    expect((await rpc(b.url, 'eth_getBlockByNumber', [hex(n2), false])).hash).toBe(aBlockN2.hash);
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(99n));
    expect(await rpc(b.url, 'eth_getStorageAt', [store, '0x0', hex(n1)])).toBe(word(42n));
    expect((await rpc(b.url, 'anvil_nodeInfo')).forkConfig).toMatchObject({
      forkUrl: a.url,
      forkBlockNumber: Number(n2),
    });

    // A remote of another chain id is refused: the node's own is fixed.
    const other = await startTestNode({ blockTime: 0, chainId: 4343n });
    nodes.push(other);
    await expect(rpc(b.url, 'anvil_reset', [{ forking: { jsonRpcUrl: other.url } }])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining(`${other.url} serves chain id 4343, this node 4242`),
    });
    await other.stop();
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(99n));

    // Another remote, at its latest block: C holds other values at the same address.
    const c = await startTestNode({ blockTime: 0, chainId: 4242n });
    nodes.push(c);
    const cStore = (await send(c.url, { from, data: bytecode })).contractAddress as string;
    expect(cStore).toBe(store); // the same deployer and nonce
    await send(c.url, { from, to: store, data: set(1234n) });
    const cn = BigInt(await rpc(c.url, 'eth_blockNumber'));
    await rpc(b.url, 'anvil_reset', [{ forking: { jsonRpcUrl: c.url } }]);
    expect(BigInt(await rpc(b.url, 'eth_blockNumber'))).toBe(cn + 1n);
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(1234n));
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [X, 'latest']))).toBe(0n);
    expect((await rpc(b.url, 'eth_getBlockByNumber', ['0x1', false])).hash).toBe(
      (await rpc(c.url, 'eth_getBlockByNumber', ['0x1', false])).hash,
    );
    await send(b.url, { from, to: store, data: set(5n) });
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(5n));

    // A remote that cannot answer: a clear error, and the node as it was.
    const head = await rpc(b.url, 'eth_getBlockByNumber', ['latest', false]);
    await expect(
      rpc(b.url, 'anvil_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1', blockNumber: 1 } }]),
    ).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('http://127.0.0.1:1') });
    expect(await rpc(b.url, 'eth_getBlockByNumber', ['latest', false])).toEqual(head);
    expect(await rpc(b.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(5n));

    // A restart opens the new fork; a reset to the fork point needs no remote.
    await b.stop({ keepData: true });
    await c.stop();
    const b2 = await startTestNode({ blockTime: 0, dataDir });
    nodes.push(b2);
    expect(await rpc(b2.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(5n));
    await rpc(b2.url, 'anvil_reset', []);
    expect(BigInt(await rpc(b2.url, 'eth_blockNumber'))).toBe(cn + 1n);
    expect(await rpc(b2.url, 'eth_call', [{ to: store, data: value }, 'latest'])).toBe(word(1234n));
  }, 120_000);

  it('an account deleted since the fork reads as gone at the blocks after, not as the remote has it', async () => {
    // A factory that CREATE2s its calldata (salt 0), and a child whose constructor self-destructs:
    // created and destroyed in one transaction, the account is deleted (EIP-6780).
    const factoryInit = '0x6010' + '80600b600039' + '6000f3' + '36600060003760003660006000f55000';
    const beneficiary = '0x00000000000000000000000000000000000f00d0';
    const childInit = `0x73${beneficiary.slice(2)}ff` as const;
    const a = await startTestNode({ blockTime: 0 });
    nodes.push(a);
    const from = a.accounts[0].address;
    const factory = (await send(a.url, { from, data: factoryInit })).contractAddress as `0x${string}`;
    const z = getContractAddress({
      opcode: 'CREATE2',
      from: factory,
      salt: `0x${'00'.repeat(32)}`,
      bytecode: childInit,
    });
    // Z holds ether on A before anything is deployed there (a counterfactual address).
    await send(a.url, { from, to: z, value: hex(ETH) });
    const n = BigInt(await rpc(a.url, 'eth_blockNumber'));

    const b = await startTestNode({ blockTime: 0, fork: { url: a.url, blockNumber: n } });
    nodes.push(b);
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [z, 'latest']))).toBe(ETH);
    const gone = await send(b.url, { from, to: factory, data: childInit, gas: hex(200_000n) });
    expect(gone.status).toBe('0x1');
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [beneficiary, 'latest']))).toBe(ETH);
    await rpc(b.url, 'evm_mine');
    for (const at of [gone.blockNumber, hex(BigInt(gone.blockNumber) + 1n), 'latest', 'pending']) {
      expect(BigInt(await rpc(b.url, 'eth_getBalance', [z, at]))).toBe(0n);
      expect(BigInt(await rpc(b.url, 'eth_getTransactionCount', [z, at]))).toBe(0n);
      expect(await rpc(b.url, 'eth_getCode', [z, at])).toBe('0x');
    }
    // Before it was deleted: as A has it.
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [z, hex(BigInt(gone.blockNumber) - 1n)]))).toBe(ETH);
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [z, hex(n)]))).toBe(ETH);
    // Its proof at a block after: no account (the remote's proof would show A's balance).
    const proof = await rpc(b.url, 'eth_getProof', [z, [], gone.blockNumber]);
    expect(BigInt(proof.balance)).toBe(0n);
    expect(BigInt(proof.nonce)).toBe(0n);
    // After a restart, which rebuilds the trie's diff layers from the blocks' forward diffs
    // (decision 0211): the same.
    await b.stop({ keepData: true });
    nodes.splice(nodes.indexOf(b), 1);
    const b2 = await startTestNode({ blockTime: 0, dataDir: b.dataDir });
    nodes.push(b2);
    expect(BigInt(await rpc(b2.url, 'eth_getBalance', [z, gone.blockNumber]))).toBe(0n);
    expect(BigInt(await rpc(b2.url, 'eth_getBalance', [z, hex(BigInt(gone.blockNumber) - 1n)]))).toBe(ETH);
  }, 60_000);

  it('anvil_setRpcUrl: the same fork read from another address, kept for a restart', async () => {
    const a = await startTestNode({ blockTime: 0 });
    nodes.push(a);
    // A transfer in the fork block: another fresh node's block N cannot share its hash (two
    // fresh dev chains started in the same second have the same genesis).
    await send(a.url, { from: a.accounts[0].address, to: X, value: hex(ETH) });
    const n = BigInt(await rpc(a.url, 'eth_blockNumber'));
    const dataDir = tempDir();
    const b = await startTestNode({ blockTime: 0, dataDir, fork: { url: a.url, blockNumber: n } });
    nodes.push(b);
    // A proxy in front of A: B's reads go through it once it is B's remote.
    let seen = 0;
    const proxy = http.createServer(async (req, res) => {
      seen++;
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const r = await fetch(a.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      });
      res.setHeader('content-type', 'application/json');
      res.end(await r.text());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    expect(await rpc(b.url, 'anvil_setRpcUrl', [url])).toBe(null);
    seen = 0;
    expect(BigInt(await rpc(b.url, 'eth_getBalance', [NEVER_READ, 'latest']))).toBe(0n);
    expect(seen).toBe(1);
    expect((await rpc(b.url, 'anvil_nodeInfo')).forkConfig.forkUrl).toBe(url);
    // Another chain is refused: the values kept are the fork block's of this one.
    const other = await startTestNode({ blockTime: 0 });
    nodes.push(other);
    while (BigInt(await rpc(other.url, 'eth_blockNumber')) < n) await rpc(other.url, 'evm_mine');
    await expect(rpc(b.url, 'anvil_setRpcUrl', [other.url])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('not the fork block'),
    });
    await other.stop();
    const otherChain = await startTestNode({ blockTime: 0, chainId: 777n });
    nodes.push(otherChain);
    await expect(rpc(b.url, 'anvil_setRpcUrl', [otherChain.url])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('serves chain id 777'),
    });
    await otherChain.stop();
    // A restart without --fork-url reads from the address set.
    await b.stop({ keepData: true });
    const b2 = await startTestNode({ blockTime: 0, dataDir });
    nodes.push(b2);
    seen = 0;
    expect(BigInt(await rpc(b2.url, 'eth_getBalance', [Y, 'latest']))).toBe(0n);
    expect(seen).toBe(1);
    proxy.close();
  }, 60_000);

  it('a remote that does not answer times out with the fork URL and --fork-timeout', async () => {
    const a = await startTestNode({ blockTime: 0 });
    nodes.push(a);
    const n = BigInt(await rpc(a.url, 'eth_blockNumber'));
    const dataDir = tempDir();
    const b = await startTestNode({ blockTime: 0, dataDir, fork: { url: a.url, blockNumber: n } });
    await b.stop({ keepData: true });
    // A remote that accepts connections and never answers.
    const silent = http.createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const b2 = await startTestNode({ blockTime: 0, dataDir, fork: { url }, forkTimeoutMs: 300 });
    nodes.push(b2);
    await expect(rpc(b2.url, 'eth_getBalance', [NEVER_READ, 'latest'])).rejects.toMatchObject({
      code: -32000,
      message: `fork remote unreachable: ${url}: no answer within 300 ms (--fork-timeout)`,
    });
    silent.closeAllConnections();
    silent.close();
  }, 60_000);

  it('asks for many accounts in one JSON-RPC batch, and never again once kept', async () => {
    const a = await startTestNode({ blockTime: 0 });
    nodes.push(a);
    // A proxy in front of A that counts HTTP requests and the calls they carry.
    const seen: number[] = [];
    const proxy = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(body);
      seen.push(Array.isArray(parsed) ? parsed.length : 1);
      const r = await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      res.setHeader('content-type', 'application/json');
      res.end(await r.text());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const store = await ChainStore.openInMemory();
    const source = new ForkSource({ url, blockNumber: 0n, timeoutMs: 5_000 }, store);
    const addresses = [a.accounts[0].address, a.accounts[1].address, X, Y, NEVER_READ].map((h) =>
      Uint8Array.from(Buffer.from(h.slice(2), 'hex')),
    );
    const got = await source.accounts(addresses);
    expect(seen).toEqual([15]); // one request: balance, nonce and code of five accounts
    expect(got[0]?.balance).toBe(10_000n * ETH);
    expect(got[2]).toBeNull();
    const again = await new ForkSource({ url, blockNumber: 0n, timeoutMs: 5_000 }, store).accounts(addresses);
    const plain = (xs: typeof got) =>
      xs.map(
        (x) => x && { nonce: x.nonce, balance: x.balance, codeHash: Buffer.from(x.codeHash).toString('hex') },
      );
    expect(plain(again)).toEqual(plain(got));
    expect(seen).toEqual([15]); // kept: no second request
    await store.close();
    proxy.close();
  });
});
