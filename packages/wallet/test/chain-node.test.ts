/**
 * Against a real wharf chain node, over the wire: the wallet never imports the chain package.
 * The node is `WHARF_CHAIN_RPC` when set (e.g. a running `wharf up`, whose dev accounts come
 * from the default mnemonic), or else one started here with the built CLI
 * (`wharf chain start --port 0`); skipped when neither is available.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletProvider, type ProviderRpcError } from '@wharf/wallet';

const CLI = join(import.meta.dirname, '..', '..', 'cli', 'dist', 'bin.js');
const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const available = !!process.env.WHARF_CHAIN_RPC || existsSync(CLI);

/** A chain the wallet starts on, so that the node's chain is a new one to add. */
const elsewhere = [
  {
    chainId: 1,
    chainName: 'elsewhere',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: ['https://rpc.invalid'],
  },
];

describe.skipIf(!available)('against a real chain node', () => {
  let url = process.env.WHARF_CHAIN_RPC ?? '';
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;

  beforeAll(async () => {
    if (url) return;
    dataDir = await mkdtemp(join(tmpdir(), 'wharf-wallet-node-'));
    child = spawn(
      process.execPath,
      [CLI, 'chain', 'start', '--port', '0', '--block-time', '1', '--data-dir', dataDir],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`the chain node did not start: ${out}`)), 60_000);
      child!.stdout!.on('data', (chunk) => {
        out += chunk;
        const match = /Chain RPC\s+(http:\/\/\S+)/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child!.on('exit', (code) => reject(new Error(`the chain node exited with ${code}: ${out}`)));
    });
  }, 90_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('wallet_addEthereumChain asks the node’s eth_chainId: a match adds and switches, a mismatch is 4902', async () => {
    const events: unknown[] = [];
    const provider = createWalletProvider({ approve: async () => true, chains: elsewhere });
    provider.on('chainChanged', (id) => events.push(id));
    const chain = (chainId: string) => ({
      chainId,
      chainName: 'wharf local',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: [url],
    });
    const mismatch = (await provider
      .request({ method: 'wallet_addEthereumChain', params: [chain('0x2a')] })
      .catch((e) => e)) as ProviderRpcError;
    expect(mismatch.code).toBe(4902);
    expect(mismatch.data).toEqual({ chainId: '0x7a69' });
    expect(events).toEqual([]);

    expect(
      await provider.request({ method: 'wallet_addEthereumChain', params: [chain('0x7a69')] }),
    ).toBeNull();
    expect(events).toEqual(['0x7a69']);
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x7a69');
    expect(await provider.request({ method: 'eth_blockNumber' })).toMatch(/^0x[0-9a-f]+$/);
  });

  it('sends a transfer with eth_sendTransaction: the pending balance shows it, then a receipt', async () => {
    const provider = createWalletProvider({
      privateKeys: [KEY0],
      approve: async () => true,
      chains: [
        {
          chainId: 31337,
          chainName: 'wharf',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [url],
        },
      ],
    });
    const [from] = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
    const balance = async () =>
      BigInt((await provider.request({ method: 'eth_getBalance', params: [TO, 'pending'] })) as string);
    const before = await balance();
    const hash = await provider.request({
      method: 'eth_sendTransaction',
      params: [{ from, to: TO, value: '0x2386f26fc10000' }],
    });
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    let after = before;
    for (let i = 0; i < 50 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await balance();
    }
    expect(after - before).toBe(10n ** 16n);
    const receipt = async () =>
      (await provider.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as {
        status: string;
      } | null;
    let found = await receipt();
    for (let i = 0; i < 100 && !found; i++) {
      await new Promise((r) => setTimeout(r, 100));
      found = await receipt();
    }
    expect(found?.status).toBe('0x1');
  });
});
