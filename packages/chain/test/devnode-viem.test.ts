/**
 * viem's test client against a real wharf node, in both of its modes: every test action, each
 * with its effect asserted at `latest` and at `pending`. The node runs as Anvil and Hardhat do by
 * default (automine: a block per transaction; a state change is sealed at once).
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  parseEther,
  parseGwei,
  type Hex,
} from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileStore } from './node-contract.js';
import { startTestNode, type TestNode } from './node-helpers.js';

const chain = defineChain({
  id: 31337,
  name: 'wharf',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1'] } },
});

for (const mode of ['anvil', 'hardhat'] as const) {
  describe(`viem test client, mode ${mode}`, () => {
    let node: TestNode;
    let test: ReturnType<typeof makeClients>['test'];
    let pub: ReturnType<typeof makeClients>['pub'];
    let wallet: ReturnType<typeof makeClients>['wallet'];
    let dev: Hex;

    function makeClients(url: string, from: Hex) {
      const transport = http(url);
      return {
        test: createTestClient({ chain, mode, transport }),
        pub: createPublicClient({ chain, transport, pollingInterval: 20 }),
        wallet: createWalletClient({ chain, transport, account: from }),
      };
    }

    beforeAll(async () => {
      node = await startTestNode({ blockTime: 0 });
      dev = node.accounts[0].address;
      ({ test, pub, wallet } = makeClients(node.url, dev));
    });
    afterAll(async () => {
      await node?.stop();
    });

    const at = async <T>(read: (tag: 'latest' | 'pending') => Promise<T>) => ({
      latest: await read('latest'),
      pending: await read('pending'),
    });

    it('mine: blocks are sealed when the call returns', async () => {
      const before = await pub.getBlockNumber({ cacheTime: 0 });
      await test.mine({ blocks: 3 });
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(before + 3n);
      const latest = await pub.getBlock({ blockTag: 'latest' });
      const pending = await pub.getBlock({ blockTag: 'pending' });
      expect(pending.parentHash).toBe(latest.hash);
    });

    it('mine with an interval spaces the timestamps', async () => {
      await test.mine({ blocks: 3, interval: 100 });
      const head = await pub.getBlock({ blockTag: 'latest' });
      const prev = await pub.getBlock({ blockNumber: head.number - 1n });
      expect(head.timestamp - prev.timestamp).toBe(100n);
      expect((await pub.getBlock({ blockTag: 'pending' })).timestamp).toBeGreaterThan(head.timestamp);
    });

    it('increaseTime moves the clock of the next blocks', async () => {
      const before = (await pub.getBlock({ blockTag: 'latest' })).timestamp;
      await test.increaseTime({ seconds: 3600 });
      await test.mine({ blocks: 1 });
      const { latest, pending } = await at((blockTag) => pub.getBlock({ blockTag }));
      expect(latest.timestamp).toBeGreaterThanOrEqual(before + 3600n);
      expect(pending.timestamp).toBeGreaterThan(latest.timestamp);
    });

    it('increaseTime counts from the latest block when blocks run ahead of the clock', async () => {
      // Ten blocks mined at once take parent + 1 each: the head is seconds ahead of the clock.
      await test.mine({ blocks: 10 });
      const before = (await pub.getBlock({ blockTag: 'latest' })).timestamp;
      await test.increaseTime({ seconds: 3600 });
      await test.mine({ blocks: 1 });
      const { latest, pending } = await at((blockTag) => pub.getBlock({ blockTag }));
      expect(latest.timestamp).toBeGreaterThanOrEqual(before + 3600n);
      // Not a second more than the clock moved meanwhile.
      expect(latest.timestamp).toBeLessThanOrEqual(before + 3600n + 2n);
      expect(pending.timestamp).toBeGreaterThan(latest.timestamp);
    });

    it('setNextBlockTimestamp sets the next block exactly, pending first', async () => {
      const t = (await pub.getBlock({ blockTag: 'latest' })).timestamp + 10_000n;
      await test.setNextBlockTimestamp({ timestamp: t });
      expect((await pub.getBlock({ blockTag: 'pending' })).timestamp).toBe(t);
      await test.mine({ blocks: 1 });
      expect((await pub.getBlock({ blockTag: 'latest' })).timestamp).toBe(t);
      expect((await pub.getBlock({ blockTag: 'pending' })).timestamp).toBeGreaterThan(t);
      await expect(test.setNextBlockTimestamp({ timestamp: t - 5n })).rejects.toThrow(/not after/);
    });

    it('setBalance', async () => {
      const who = '0x00000000000000000000000000000000000b0001';
      await test.setBalance({ address: who, value: parseEther('12.5') });
      const { latest, pending } = await at((blockTag) => pub.getBalance({ address: who, blockTag }));
      expect(latest).toBe(parseEther('12.5'));
      expect(pending).toBe(parseEther('12.5'));
    });

    it('setCode', async () => {
      const who = '0x00000000000000000000000000000000000b0002';
      await test.setCode({ address: who, bytecode: '0x60016000526001601ff3' });
      const { latest, pending } = await at((blockTag) => pub.getCode({ address: who, blockTag }));
      expect(latest).toBe('0x60016000526001601ff3');
      expect(pending).toBe('0x60016000526001601ff3');
      // The code runs: it returns one byte, 0x01.
      expect((await pub.call({ to: who })).data).toBe('0x01');
    });

    it('setStorageAt', async () => {
      const who = '0x00000000000000000000000000000000000b0003';
      const value = `0x${'ab'.repeat(32)}` as Hex;
      await test.setStorageAt({ address: who, index: 7, value });
      const { latest, pending } = await at((blockTag) =>
        pub.getStorageAt({ address: who, slot: '0x07', blockTag }),
      );
      expect(latest).toBe(value);
      expect(pending).toBe(value);
    });

    it('setNonce', async () => {
      const who = '0x00000000000000000000000000000000000b0004';
      await test.setNonce({ address: who, nonce: 42 });
      const { latest, pending } = await at((blockTag) => pub.getTransactionCount({ address: who, blockTag }));
      expect(latest).toBe(42);
      expect(pending).toBe(42);
    });

    it('impersonateAccount + sendUnsignedTransaction, stopImpersonatingAccount', async () => {
      const whale = '0x00000000000000000000000000000000000b0005';
      const to = '0x00000000000000000000000000000000000b0006';
      await test.setBalance({ address: whale, value: parseEther('5') });
      await test.impersonateAccount({ address: whale });
      const hash = await test.sendUnsignedTransaction({ from: whale, to, value: parseEther('1') });
      const receipt = await pub.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe('success');
      expect(receipt.from).toBe(whale);
      expect((await pub.getTransaction({ hash })).from).toBe(whale);
      const { latest, pending } = await at((blockTag) => pub.getBalance({ address: to, blockTag }));
      expect(latest).toBe(parseEther('1'));
      expect(pending).toBe(parseEther('1'));
      // eth_sendTransaction without a key works too while impersonated.
      const wallet2 = createWalletClient({ chain, transport: http(node.url), account: whale });
      const hash2 = await wallet2.sendTransaction({ to, value: parseEther('1') });
      await pub.waitForTransactionReceipt({ hash: hash2 });
      expect(await pub.getBalance({ address: to, blockTag: 'pending' })).toBe(parseEther('2'));
      await test.stopImpersonatingAccount({ address: whale });
      await expect(test.sendUnsignedTransaction({ from: whale, to, value: 1n })).rejects.toThrow(
        /not impersonated/,
      );
    });

    it('setAutomine off: transactions wait in the pool until mine', async () => {
      expect(await test.getAutomine()).toBe(true);
      await test.setAutomine(false);
      expect(await test.getAutomine()).toBe(false);
      const to = '0x00000000000000000000000000000000000b0007';
      const before = await pub.getBlockNumber({ cacheTime: 0 });
      const hash = await wallet.sendTransaction({ to, value: 3n });
      await new Promise((r) => setTimeout(r, 300));
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(before);
      expect(await pub.getBalance({ address: to, blockTag: 'latest' })).toBe(0n);
      expect(await pub.getBalance({ address: to, blockTag: 'pending' })).toBe(0n);
      expect((await pub.getTransaction({ hash })).blockNumber).toBe(null);
      await test.mine({ blocks: 1 });
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(before + 1n);
      const { latest, pending } = await at((blockTag) => pub.getBalance({ address: to, blockTag }));
      expect(latest).toBe(3n);
      expect(pending).toBe(3n);
      await test.setAutomine(true);
    });

    it('dropTransaction makes a pooled transaction unknown', async () => {
      await test.setAutomine(false);
      const to = '0x00000000000000000000000000000000000b0008';
      const nonce = await pub.getTransactionCount({ address: dev, blockTag: 'latest' });
      const hash = await wallet.sendTransaction({ to, value: 9n });
      // A queued one (a nonce gap) too.
      const queued = await wallet.sendTransaction({ to, value: 9n, nonce: nonce + 5 });
      expect(await pub.getTransactionCount({ address: dev, blockTag: 'pending' })).toBe(nonce + 1);
      await test.dropTransaction({ hash });
      await test.dropTransaction({ hash: queued });
      await expect(pub.getTransaction({ hash })).rejects.toThrow(/could not be found/);
      await expect(pub.getTransaction({ hash: queued })).rejects.toThrow(/could not be found/);
      const { latest, pending } = await at((blockTag) => pub.getTransactionCount({ address: dev, blockTag }));
      expect(latest).toBe(nonce);
      expect(pending).toBe(nonce);
      await test.mine({ blocks: 1 });
      expect(await pub.getBalance({ address: to })).toBe(0n);
      await test.setAutomine(true);
    });

    it('getTxpoolContent / getTxpoolStatus / inspectTxpool see a pooled transaction', async () => {
      await test.setAutomine(false);
      try {
        const to = '0x00000000000000000000000000000000000b000d';
        const hash = await wallet.sendTransaction({ to, value: 4n });
        expect(await test.getTxpoolStatus()).toEqual({ pending: 1, queued: 0 });
        const content = await test.getTxpoolContent();
        // Keyed by checksummed sender, as geth.
        expect(Object.values(content.pending[getAddress(dev)] ?? {}).map((t) => t.hash)).toEqual([hash]);
        const inspect = await test.inspectTxpool();
        expect(Object.values(inspect.pending[getAddress(dev)] ?? {})[0]).toMatch(/^0x0{35}b000d: 4 wei/i);
        // Not pre-confirmed in manual mode: neither latest nor pending has it yet.
        expect(await pub.getBalance({ address: to, blockTag: 'pending' })).toBe(0n);
        await test.mine({ blocks: 1 });
        expect(await test.getTxpoolStatus()).toEqual({ pending: 0, queued: 0 });
        const { latest, pending } = await at((blockTag) => pub.getBalance({ address: to, blockTag }));
        expect(latest).toBe(4n);
        expect(pending).toBe(4n);
      } finally {
        await test.setAutomine(true);
      }
    });

    it('setLoggingEnabled', async () => {
      await test.setLoggingEnabled(false);
      await test.setLoggingEnabled(true);
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(0n);
    });

    it('setMinGasPrice is refused on an EIP-1559 chain, as Anvil and Hardhat refuse it', async () => {
      await expect(test.setMinGasPrice({ gasPrice: parseGwei('1') })).rejects.toThrow(
        `${mode}_setMinGasPrice is not supported when EIP-1559 is active`,
      );
    });

    if (mode === 'anvil') {
      // Anvil's only (Hardhat has no such methods; viem's hardhat mode would send milliseconds).
      it('setBlockTimestampInterval / removeBlockTimestampInterval', async () => {
        await test.setBlockTimestampInterval({ interval: 500 });
        const before = (await pub.getBlock({ blockTag: 'latest' })).timestamp;
        expect((await pub.getBlock({ blockTag: 'pending' })).timestamp).toBe(before + 500n);
        await test.mine({ blocks: 2 });
        const { latest, pending } = await at((blockTag) => pub.getBlock({ blockTag }));
        expect(latest.timestamp).toBe(before + 1000n);
        expect(pending.timestamp).toBe(before + 1500n);
        expect(await test.request({ method: 'anvil_removeBlockTimestampInterval' } as never)).toBe(true);
        expect(await test.request({ method: 'anvil_removeBlockTimestampInterval' } as never)).toBe(false);
        await test.mine({ blocks: 1 });
        // Back to the clock: a block a second after the last, the clock being behind it.
        expect((await pub.getBlock({ blockTag: 'latest' })).timestamp).toBe(before + 1001n);
      });

      it('setRpcUrl is refused on a node that is not a fork', async () => {
        await expect(test.setRpcUrl('http://127.0.0.1:1')).rejects.toThrow(/not a fork/);
      });
    }

    it('setBlockGasLimit', async () => {
      await test.setBlockGasLimit({ gasLimit: 45_000_000n });
      expect((await pub.getBlock({ blockTag: 'pending' })).gasLimit).toBe(45_000_000n);
      await test.mine({ blocks: 1 });
      const { latest, pending } = await at((blockTag) => pub.getBlock({ blockTag }));
      expect(latest.gasLimit).toBe(45_000_000n);
      expect(pending.gasLimit).toBe(45_000_000n);
    });

    it('setNextBlockBaseFeePerGas', async () => {
      await test.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('7') });
      expect((await pub.getBlock({ blockTag: 'pending' })).baseFeePerGas).toBe(parseGwei('7'));
      await test.mine({ blocks: 1 });
      const { latest, pending } = await at((blockTag) => pub.getBlock({ blockTag }));
      expect(latest.baseFeePerGas).toBe(parseGwei('7'));
      // The next block's follows from it (EIP-1559, an empty block: lower).
      expect(pending.baseFeePerGas).toBeLessThan(parseGwei('7'));
    });

    it('setCoinbase', async () => {
      const miner = '0x00000000000000000000000000000000000b0009';
      await test.setCoinbase({ address: miner });
      expect((await pub.getBlock({ blockTag: 'pending' })).miner).toBe(miner);
      await test.mine({ blocks: 1 });
      const { latest, pending } = await at((blockTag) => pub.getBlock({ blockTag }));
      expect(latest.miner).toBe(miner);
      expect(pending.miner).toBe(miner);
    });

    it('snapshot / revert: blocks, state and the pool as they were', async () => {
      const who = '0x00000000000000000000000000000000000b000a';
      const { abi, bytecode } = compileStore();
      const deployHash = await wallet.deployContract({ abi, bytecode });
      const store = (await pub.waitForTransactionReceipt({ hash: deployHash })).contractAddress!;
      // Sealed before the head is read: a send returns once the transaction is pooled, and
      // automine seals it a moment later (as Anvil's miner does).
      const set5 = await wallet.writeContract({ address: store, abi, functionName: 'set', args: [5n] });
      await pub.waitForTransactionReceipt({ hash: set5 });
      const head = await pub.getBlock({ blockTag: 'latest' });
      const id = await test.snapshot();
      await test.setBalance({ address: who, value: 77n });
      const setHash = await wallet.writeContract({ address: store, abi, functionName: 'set', args: [0n] });
      await pub.waitForTransactionReceipt({ hash: setHash });
      await test.mine({ blocks: 2 });
      expect(await pub.getBalance({ address: who })).toBe(77n);

      await test.revert({ id });
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(head.number);
      expect((await pub.getBlock({ blockTag: 'latest' })).hash).toBe(head.hash);
      const bal = await at((blockTag) => pub.getBalance({ address: who, blockTag }));
      expect(bal).toEqual({ latest: 0n, pending: 0n });
      // The slot zeroed after the snapshot is back.
      const value = await at((blockTag) =>
        pub.readContract({ address: store, abi, functionName: 'value', blockTag }),
      );
      expect(value).toEqual({ latest: 5n, pending: 5n });
      // The transactions after the snapshot are gone, their blocks too.
      await expect(pub.getTransaction({ hash: setHash })).rejects.toThrow(/could not be found/);
      expect(await pub.getBlock({ blockNumber: head.number + 1n }).catch(() => null)).toBe(null);
      // A snapshot is used up by its revert.
      expect(await test.request({ method: 'evm_revert', params: [id] } as never)).toBe(false);
      // The chain goes on from there.
      await test.mine({ blocks: 1 });
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(head.number + 1n);
    });

    it('revert takes the clock back to the snapshot, as Anvil does', async () => {
      const head = await pub.getBlock({ blockTag: 'latest' });
      const id = await test.snapshot();
      await test.increaseTime({ seconds: 86_400 });
      await test.mine({ blocks: 1 });
      expect((await pub.getBlock({ blockTag: 'latest' })).timestamp).toBeGreaterThanOrEqual(
        head.timestamp + 86_400n,
      );
      await test.revert({ id });
      await test.mine({ blocks: 1 });
      const { latest, pending } = await at((blockTag) => pub.getBlock({ blockTag }));
      expect(latest.number).toBe(head.number + 1n);
      expect(latest.timestamp).toBeGreaterThan(head.timestamp);
      expect(latest.timestamp).toBeLessThan(head.timestamp + 60n);
      expect(pending.timestamp).toBeLessThan(head.timestamp + 60n);
    });

    it('dumpState / loadState', async () => {
      const who = '0x00000000000000000000000000000000000b000b';
      await test.setBalance({ address: who, value: 1234n });
      await test.setStorageAt({ address: who, index: 1, value: `0x${'00'.repeat(31)}05` });
      const state = await test.dumpState();
      expect(state).toMatch(/^0x1f8b/); // gzip, as Anvil
      const other = await startTestNode({ blockTime: 0 });
      try {
        const c = makeClients(other.url, dev);
        expect(await c.pub.getBalance({ address: who })).toBe(0n);
        await c.test.loadState({ state });
        const { latest, pending } = await at((blockTag) => c.pub.getBalance({ address: who, blockTag }));
        expect(latest).toBe(1234n);
        expect(pending).toBe(1234n);
        expect(await c.pub.getStorageAt({ address: who, slot: '0x1' })).toBe(`0x${'00'.repeat(31)}05`);
        // The whole world came along: the same state root.
        expect((await c.pub.getBlock({ blockTag: 'latest' })).stateRoot).toBe(
          (await pub.getBlock({ blockTag: 'latest' })).stateRoot,
        );
      } finally {
        await other.stop();
      }
    });

    it('reset: back to genesis', async () => {
      const genesis = await pub.getBlock({ blockNumber: 0n });
      await test.setBalance({ address: dev, value: 1n });
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(0n);
      await test.reset();
      expect(await pub.getBlockNumber({ cacheTime: 0 })).toBe(0n);
      expect((await pub.getBlock({ blockTag: 'latest' })).hash).toBe(genesis.hash);
      const { latest, pending } = await at((blockTag) => pub.getBalance({ address: dev, blockTag }));
      expect(latest).toBe(parseEther('10000'));
      expect(pending).toBe(parseEther('10000'));
      // Blocks are built on it again.
      const hash = await wallet.sendTransaction({
        to: '0x00000000000000000000000000000000000b000c',
        value: 1n,
      });
      expect((await pub.waitForTransactionReceipt({ hash })).blockNumber).toBe(1n);
    });
  });
}
