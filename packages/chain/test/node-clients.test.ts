/**
 * Real clients against a running node: viem and ethers v6 transfers, a solc-compiled contract
 * deployed and called, storage read at latest and at an earlier block, events via eth_getLogs.
 */
import { JsonRpcProvider, Wallet, ContractFactory, type Contract } from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  parseAbiItem,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileStore } from './node-contract.js';
import { rpc, startTestNode, type TestNode } from './node-helpers.js';

let node: TestNode;
const { abi, bytecode } = compileStore();

beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node?.stop();
});

function viemClients(accountIndex = 0) {
  const chain = defineChain({
    id: 31337,
    name: 'wharf',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  const account = privateKeyToAccount(node.accounts[accountIndex].privateKey);
  const transport = http(node.url);
  return {
    account,
    pub: createPublicClient({ chain, transport, pollingInterval: 25 }),
    wallet: createWalletClient({ chain, transport, account }),
  };
}

describe('viem', () => {
  it('sees the dev chain and funded accounts', async () => {
    const { pub } = viemClients();
    expect(await pub.getChainId()).toBe(31337);
    expect(node.accounts[0].address).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(await pub.getBalance({ address: node.accounts[1].address })).toBe(parseEther('10000'));
    const genesis = await pub.getBlock({ blockNumber: 0n });
    expect(genesis.baseFeePerGas).toBe(1_000_000_000n);
  });

  it('transfers ether and mines it into a block with real roots', async () => {
    const { pub, wallet } = viemClients(2);
    const to = '0x000000000000000000000000000000000000beef';
    const hash = await wallet.sendTransaction({ to, value: parseEther('1.5') });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe('success');
    expect(receipt.gasUsed).toBe(21000n);
    expect(await pub.getBalance({ address: to })).toBe(parseEther('1.5'));
    const block = await pub.getBlock({ blockNumber: receipt.blockNumber });
    expect(block.transactions).toEqual([hash]);
    expect(block.hash).toBe(receipt.blockHash);
    expect((block as { requestsHash?: string }).requestsHash).toBe(
      '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(block.parentBeaconBlockRoot).toBe(`0x${'0'.repeat(64)}`);
    expect(block.withdrawals).toEqual([]);
    expect(block.transactionsRoot).not.toBe(
      '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
    );
    // The hash is keccak256 of the RLP header.
    const raw = await rpc(node.url, 'debug_getRawHeader', [block.hash]);
    const { keccak256 } = await import('viem');
    expect(keccak256(raw)).toBe(block.hash);
  });

  it('deploys a contract, calls it, reads storage now and at an earlier block, finds its logs', async () => {
    const { pub, wallet, account } = viemClients(3);
    const deployHash = await wallet.deployContract({ abi, bytecode });
    const deployed = await pub.waitForTransactionReceipt({ hash: deployHash });
    const address = deployed.contractAddress!;
    expect(await pub.getCode({ address })).toMatch(/^0x60/);

    const h1 = await wallet.writeContract({ address, abi, functionName: 'set', args: [42n] });
    const r1 = await pub.waitForTransactionReceipt({ hash: h1 });
    const h2 = await wallet.writeContract({ address, abi, functionName: 'set', args: [7n] });
    const r2 = await pub.waitForTransactionReceipt({ hash: h2 });

    expect(await pub.readContract({ address, abi, functionName: 'value' })).toBe(7n);
    const slot0 = '0x0' as Hex;
    expect(BigInt((await pub.getStorageAt({ address, slot: slot0 }))!)).toBe(7n);
    expect(BigInt((await pub.getStorageAt({ address, slot: slot0, blockNumber: r1.blockNumber }))!)).toBe(
      42n,
    );
    expect(
      BigInt((await pub.getStorageAt({ address, slot: slot0, blockNumber: deployed.blockNumber }))!),
    ).toBe(0n);
    expect(await pub.readContract({ address, abi, functionName: 'value', blockNumber: r1.blockNumber })).toBe(
      42n,
    );

    const logs = await pub.getLogs({
      address,
      event: parseAbiItem('event Stored(address indexed who, uint256 value)'),
      fromBlock: 0n,
      toBlock: r2.blockNumber,
    });
    expect(logs.map((l) => l.args.value)).toEqual([42n, 7n]);
    expect(logs[0].args.who?.toLowerCase()).toBe(account.address.toLowerCase());
    expect(logs[1].blockNumber).toBe(r2.blockNumber);

    await expect(pub.simulateContract({ address, abi, functionName: 'fail', account })).rejects.toThrow(
      /nope/,
    );
    const gas = await pub.estimateContractGas({ address, abi, functionName: 'set', args: [1n], account });
    expect(gas).toBeGreaterThan(21000n);
  });
});

describe('ethers v6', () => {
  it('transfers, deploys and calls', async () => {
    // cacheTimeout -1: ethers caches identical reads for 250 ms, longer than a block takes here.
    const provider = new JsonRpcProvider(node.url, undefined, {
      staticNetwork: true,
      pollingInterval: 25,
      cacheTimeout: -1,
    });
    try {
      const wallet = new Wallet(node.accounts[4].privateKey, provider);
      expect((await provider.getNetwork()).chainId).toBe(31337n);
      const tx = await wallet.sendTransaction({
        to: '0x000000000000000000000000000000000000cafe',
        value: 5n,
      });
      const receipt = await tx.wait();
      expect(receipt?.status).toBe(1);
      expect(await provider.getBalance('0x000000000000000000000000000000000000cafe')).toBe(5n);

      const factory = new ContractFactory(abi, bytecode, wallet);
      const contract = (await factory.deploy()) as Contract;
      await contract.waitForDeployment();
      const setTx = await contract.getFunction('set')(99n);
      await setTx.wait();
      expect(await contract.getFunction('value')()).toBe(99n);
      const events = await contract.queryFilter(contract.filters.Stored(), 0);
      expect(events).toHaveLength(1);
      expect(await provider.getTransactionCount(wallet.address)).toBe(3);
      const block = await provider.getBlock('latest', true);
      expect(block?.number).toBe(await provider.getBlockNumber());
    } finally {
      provider.destroy();
    }
  });
});
