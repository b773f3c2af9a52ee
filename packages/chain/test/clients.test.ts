/**
 * The clients people use, unmodified and without a flag, against a running node with 2 s blocks
 * and 200 ms flashblocks (issue 31): ethers v6, viem (including its pre-confirmation support)
 * and Foundry's cast. Each parses the pending block, pre-confirmed and sealed receipts, and
 * waits for a transaction at its pre-confirmation.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ContractFactory, JsonRpcProvider, Wallet, Contract as EthersContract } from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  keccak256,
  parseEther,
  publicActions,
  toHex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileStore } from './node-contract.js';
import { rpc, startTestNode, type TestNode, waitFor } from './node-helpers.js';

const ZERO_HASH = `0x${'0'.repeat(64)}`;
const TO = '0x0000000000000000000000000000000000c11e47';
const STORED = keccak256(toHex('Stored(address,uint256)'));
const { abi, bytecode } = compileStore();

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode({ blockTime: 2, flashblockInterval: 200 });
});
afterAll(async () => {
  await node?.stop();
});

const head = async () => BigInt(await rpc(node.url, 'eth_blockNumber'));

/** Waits for the next seal; the whole block time (2 s) is ahead. */
async function afterSeal(): Promise<bigint> {
  const start = await head();
  return waitFor(async () => {
    const n = await head();
    return n > start ? n : undefined;
  }, 5000);
}

async function sealedBlockOf(hash: string): Promise<{ hash: string; number: string }> {
  const r = await waitFor(async () => {
    const x = await rpc(node.url, 'eth_getTransactionReceipt', [hash]);
    return x && x.blockHash !== ZERO_HASH ? x : undefined;
  }, 6000);
  return rpc(node.url, 'eth_getBlockByNumber', [r.blockNumber, false]);
}

describe('ethers v6', () => {
  let provider: JsonRpcProvider;
  beforeAll(() => {
    provider = new JsonRpcProvider(node.url, undefined, { staticNetwork: true, pollingInterval: 100 });
  });
  afterAll(() => provider.destroy());

  it("getBlock('pending') and getBlock('latest')", async () => {
    const latest = await provider.getBlock('latest');
    const pending = await provider.getBlock('pending');
    expect(latest?.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(pending).toMatchObject({ hash: ZERO_HASH });
    expect(pending!.number).toBeGreaterThan(latest!.number);
    expect(pending!.parentHash).toBe((await provider.getBlock(pending!.number - 1))!.hash);
  });

  it('sendTransaction then tx.wait() resolves at the pre-confirmation; receipts before and after the seal', async () => {
    const wallet = new Wallet(node.accounts[0].privateKey, provider);
    const latest = await afterSeal();
    const tx = await wallet.sendTransaction({ to: TO, value: 7n });
    const receipt = await tx.wait();
    // Resolved before the seal of its block.
    expect(BigInt(await head())).toBe(latest);
    expect(receipt).toMatchObject({
      hash: tx.hash,
      status: 1,
      blockNumber: Number(latest + 1n),
      blockHash: ZERO_HASH,
    });
    const pre = await provider.getTransactionReceipt(tx.hash);
    expect(pre).toMatchObject({
      blockHash: ZERO_HASH,
      blockNumber: Number(latest + 1n),
      index: receipt!.index,
    });

    const sealed = await sealedBlockOf(tx.hash);
    const after = await provider.getTransactionReceipt(tx.hash);
    expect(after).toMatchObject({
      blockHash: sealed.hash,
      blockNumber: Number(latest + 1n),
      index: receipt!.index,
    });
  });

  it('deploys a contract, calls it at pending and latest, and queries its events', async () => {
    const wallet = new Wallet(node.accounts[1].privateKey, provider);
    const factory = new ContractFactory(abi, bytecode, wallet);
    const deployed = await factory.deploy();
    await deployed.waitForDeployment();
    const address = await deployed.getAddress();
    await sealedBlockOf(deployed.deploymentTransaction()!.hash);
    const store = new EthersContract(address, abi, wallet);
    const latest = await afterSeal();
    const tx = await store.set(99n);
    const receipt = await tx.wait();
    expect(receipt.blockHash).toBe(ZERO_HASH);
    expect(await store.value({ blockTag: 'pending' })).toBe(99n);
    expect(await store.value({ blockTag: 'latest' })).toBe(0n);
    const pendingEvents = await store.queryFilter('Stored', Number(latest), 'pending');
    expect(pendingEvents.map((e) => [e.transactionHash, e.blockNumber, e.blockHash])).toEqual([
      [tx.hash, Number(latest + 1n), ZERO_HASH],
    ]);
    const sealed = await sealedBlockOf(tx.hash);
    const events = await store.queryFilter('Stored', Number(latest), 'latest');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ transactionHash: tx.hash, blockHash: sealed.hash });
    expect((events[0] as { args: unknown[] }).args[1]).toBe(99n);
  });
});

describe('viem', () => {
  const chain = defineChain({
    id: 31337,
    name: 'wharf',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: ['http://127.0.0.1'] } },
  });
  /** As viem's basePreconf: a chain whose pre-confirmations come every 200 ms. */
  const preconf = defineChain({ ...chain, blockTime: 2000, experimental_preconfirmationTime: 200 });
  const clients = (i: number, c = chain) => {
    const transport = http(node.url);
    const account = privateKeyToAccount(node.accounts[i].privateKey);
    return {
      account,
      pub: createPublicClient({ chain: c, transport, pollingInterval: 100 }),
      wallet: createWalletClient({ chain: c, transport, account }).extend(publicActions),
    };
  };

  it('getBlock pending and latest; receipts pre-confirmed and sealed', async () => {
    const { pub, wallet } = clients(2);
    const latest = await pub.getBlock({ blockTag: 'latest' });
    const pending = await pub.getBlock({ blockTag: 'pending' });
    expect(pending.number).toBe(latest.number + 1n);
    expect(pending.hash).toBe(ZERO_HASH);
    expect(pending.parentHash).toBe(latest.hash);
    const n = await afterSeal();
    const hash = await wallet.sendTransaction({ to: TO, value: 1n });
    // Read once it is pre-confirmed (the waiting itself is timed in the preconf-chain test below).
    await waitFor(
      async () => (await pub.getBlock({ blockTag: 'pending' })).transactions.includes(hash),
      2000,
    );
    const pre = await pub.getTransactionReceipt({ hash });
    expect(pre).toMatchObject({ status: 'success', blockHash: ZERO_HASH, blockNumber: n + 1n });
    expect(await head()).toBe(n);
    const sealed = await sealedBlockOf(hash);
    expect(await pub.getTransactionReceipt({ hash })).toMatchObject({
      blockHash: sealed.hash,
      blockNumber: n + 1n,
    });
  });

  it('sendRawTransactionSync and sendTransactionSync answer with the pre-confirmed receipt', async () => {
    const { account, wallet } = clients(3);
    const latest = await afterSeal();
    const nonce = await wallet.getTransactionCount({ address: account.address, blockTag: 'pending' });
    const serializedTransaction = await wallet.signTransaction({
      to: TO,
      value: 2n,
      nonce,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
    });
    const started = performance.now();
    const receipt = await wallet.sendRawTransactionSync({ serializedTransaction });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(receipt).toMatchObject({
      transactionHash: keccak256(serializedTransaction),
      status: 'success',
      blockHash: ZERO_HASH,
      blockNumber: latest + 1n,
    });
    const viaSend = await wallet.sendTransactionSync({ to: TO, value: 3n });
    expect(viaSend).toMatchObject({ status: 'success', blockNumber: latest + 1n, blockHash: ZERO_HASH });
    expect(await head()).toBe(latest);
  });

  it('deploys a contract, calls it at pending and latest, and queries its events', async () => {
    const { pub, wallet } = clients(8);
    const deployHash = await wallet.deployContract({ abi, bytecode });
    const deployed = await pub.waitForTransactionReceipt({ hash: deployHash });
    const address = deployed.contractAddress!;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    await sealedBlockOf(deployHash);
    const latest = await afterSeal();
    const hash = await wallet.writeContract({ address, abi, functionName: 'set', args: [99n] });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt).toMatchObject({ status: 'success', blockHash: ZERO_HASH, blockNumber: latest + 1n });
    expect(await pub.readContract({ address, abi, functionName: 'value', blockTag: 'pending' })).toBe(99n);
    expect(await pub.readContract({ address, abi, functionName: 'value', blockTag: 'latest' })).toBe(0n);
    const pendingEvents = await pub.getContractEvents({
      address,
      abi,
      eventName: 'Stored',
      fromBlock: latest,
      toBlock: 'pending',
    });
    expect(pendingEvents.map((e) => [e.transactionHash, e.blockNumber, e.blockHash])).toEqual([
      [hash, latest + 1n, ZERO_HASH],
    ]);
    const sealed = await sealedBlockOf(hash);
    const events = await pub.getContractEvents({
      address,
      abi,
      eventName: 'Stored',
      fromBlock: latest,
      toBlock: 'latest',
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ transactionHash: hash, blockHash: sealed.hash });
    expect((events[0] as unknown as { args: { value: bigint } }).args.value).toBe(99n);
  });

  it("watchBlocks({ blockTag: 'pending' }) sees the block being built, block after block", async () => {
    const { pub } = clients(4);
    const seen: { number: bigint | null; hash: string | null; parentHash: string }[] = [];
    const unwatch = pub.watchBlocks({
      blockTag: 'pending',
      pollingInterval: 100,
      emitOnBegin: true,
      onBlock: (b) => seen.push({ number: b.number, hash: b.hash, parentHash: b.parentHash }),
    });
    try {
      await waitFor(async () => seen.length >= 2, 8000);
    } finally {
      unwatch();
    }
    for (const b of seen) expect(b.hash).toBe(ZERO_HASH);
    expect(seen[1].number).toBe(seen[0].number! + 1n);
    const parent = await pub.getBlock({ blockNumber: seen[1].number! - 1n });
    expect(seen[1].parentHash).toBe(parent.hash);
  });

  it('a chain with experimental_preconfirmationTime: 200 reads at pending, and waitForTransactionReceipt returns within 400 ms', async () => {
    const { pub, wallet } = clients(5, preconf);
    await afterSeal();
    const fresh = privateKeyToAccount(`0x${'5'.repeat(64)}`).address;
    const before = await pub.getBalance({ address: fresh, blockTag: 'latest' });
    const hash = await wallet.sendTransaction({ to: fresh, value: parseEther('0.25') });
    const submitted = performance.now();
    const receipt = await pub.waitForTransactionReceipt({ hash });
    const took = performance.now() - submitted;
    expect(receipt).toMatchObject({ status: 'success', blockHash: ZERO_HASH });
    expect(took).toBeLessThan(400);
    // The client's default block tag is `pending`: the transfer shows before the seal.
    expect(await pub.getBalance({ address: fresh })).toBe(before + parseEther('0.25'));
    expect(await pub.getBalance({ address: fresh, blockTag: 'latest' })).toBe(before);
  });
});

/** The cast binary of the optional dependency, when this platform has it. */
function castBinary(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve('@foundry-rs/cast-linux-amd64/package.json'));
    const bin = path.join(dir, 'bin', 'cast');
    fs.accessSync(bin, fs.constants.X_OK);
    return bin;
  } catch {
    return undefined;
  }
}

const cast = castBinary();
if (!cast)
  console.warn(
    "Foundry's cast tests skipped: @foundry-rs/cast-linux-amd64 is not installed (an optional dependency for linux x64 only)",
  );

describe.skipIf(!cast)("Foundry's cast (@foundry-rs/cast-linux-amd64)", () => {
  // Its own node with 6 s blocks: each cast command is a process start (0.3-1 s on a loaded
  // machine), and the pre-confirmed answers must be read before the seal.
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode({ blockTime: 6, flashblockInterval: 200 });
  });
  afterAll(async () => {
    await node?.stop();
  });
  const head = async () => BigInt(await rpc(node.url, 'eth_blockNumber'));
  async function afterSeal(): Promise<bigint> {
    const start = await head();
    return waitFor(async () => {
      const n = await head();
      return n > start ? n : undefined;
    }, 8000);
  }

  /** Runs cast without blocking this process (the node runs in it). */
  function run(args: string[]): Promise<string> {
    return new Promise((resolve, reject) =>
      execFile(
        cast!,
        [args[0], '--rpc-url', node.url, ...args.slice(1)],
        { timeout: 30_000 },
        (err, stdout, stderr) =>
          err ? reject(new Error(`cast ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
      ),
    );
  }

  it('block pending and block latest', async () => {
    const latest = JSON.parse(await run(['block', 'latest', '--json']));
    const pending = JSON.parse(await run(['block', 'pending', '--json']));
    expect(BigInt(pending.number)).toBeGreaterThan(BigInt(latest.number));
    expect(pending.hash).toBe(ZERO_HASH);
    expect(latest.hash).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('receipt of a pre-confirmed transaction; send waiting for its receipt; call and logs', async () => {
    const key = node.accounts[6].privateKey;
    const latest = await afterSeal();
    const from = privateKeyToAccount(key).address;
    const nonce = Number(await rpc(node.url, 'eth_getTransactionCount', [from, 'pending']));
    const raw = await privateKeyToAccount(key).signTransaction({
      to: TO,
      value: 1n,
      nonce,
      gas: 21000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
      chainId: 31337,
      type: 'eip1559',
    });
    const hash = await rpc(node.url, 'eth_sendRawTransaction', [raw]);
    await waitFor(
      async () =>
        (await rpc(node.url, 'eth_getBlockByNumber', ['pending', false])).transactions.includes(hash),
      2000,
    );
    const pre = JSON.parse(await run(['receipt', hash, '--json']));
    expect(pre).toMatchObject({
      transactionHash: hash,
      blockHash: ZERO_HASH,
      blockNumber: `0x${(latest + 1n).toString(16)}`,
      status: '0x1',
    });

    // Read before the seal: the receipt was the pre-confirmed one.
    expect(await head()).toBe(latest);

    // Deploy with send --create (waits for the receipt), set a value, read it back and find its log.
    // cast takes the nonce at `latest`: a second send from an account before its first is sealed
    // names the pending nonce (README, Receipts).
    const sender = node.accounts[7];
    const created = JSON.parse(
      await run(['send', '--private-key', sender.privateKey, '--json', '--create', bytecode]),
    );
    expect(created.status).toBe('0x1');
    const store = created.contractAddress as Hex;
    const next = (await run(['nonce', sender.address, '--block', 'pending'])).trim();
    const sent = JSON.parse(
      await run([
        'send',
        '--private-key',
        sender.privateKey,
        '--nonce',
        next,
        '--json',
        store,
        'set(uint256)',
        '77',
      ]),
    );
    expect(sent).toMatchObject({ status: '0x1', to: store });
    expect((await run(['call', store, 'value()(uint256)', '--block', 'pending'])).trim()).toBe('77');
    await waitFor(async () => {
      const r = await rpc(node.url, 'eth_getTransactionReceipt', [sent.transactionHash]);
      return r.blockHash !== ZERO_HASH;
    }, 10_000);
    expect((await run(['call', store, 'value()(uint256)'])).trim()).toBe('77');
    const logs = JSON.parse(
      await run([
        'logs',
        '--json',
        '--address',
        store,
        '--from-block',
        String(latest),
        '--to-block',
        'latest',
        STORED,
      ]),
    );
    expect(logs).toEqual([
      expect.objectContaining({ transactionHash: sent.transactionHash, address: store }),
    ]);
  });
});
