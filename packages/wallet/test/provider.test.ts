import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTransaction, recoverTransactionAddress, verifyMessage, verifyTypedData } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ApprovalRequest,
  createWallet,
  createWalletProvider,
  encryptKeystore,
  memoryStorage,
  type ProviderRpcError,
} from '@wharf/wallet';
import { type FakeRpc, startFakeRpc, unusedUrl } from './fakeRpc.js';

const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const KEY1 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const ADDR1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

let rpc: FakeRpc;
beforeAll(async () => {
  rpc = await startFakeRpc('0x7a69', {
    eth_getTransactionCount: () => '0x5',
    eth_estimateGas: () => '0x5208',
    eth_maxPriorityFeePerGas: () => '0x3b9aca00',
    eth_getBlockByNumber: ([tag]) =>
      tag === 'pending' ? { number: null, baseFeePerGas: '0x7' } : { baseFeePerGas: '0x9' },
    eth_gasPrice: () => '0x2540be400',
    eth_sendRawTransaction: ([raw]) => `0x${'ab'.repeat(32)}${String(raw).length > 0 ? '' : 'x'}`,
    eth_getBalance: () => '0x56bc75e2d63100000',
    eth_blockNumber: () => '0x10',
  });
});
afterAll(() => rpc.close());

const local = () => [
  {
    chainId: 31337,
    chainName: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: [rpc.url],
  },
];

async function failure(promise: Promise<unknown>): Promise<ProviderRpcError> {
  try {
    await promise;
  } catch (error) {
    return error as ProviderRpcError;
  }
  throw new Error('expected the request to fail');
}

function recorder(answer = true) {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    approve: async (request: ApprovalRequest) => {
      asked.push(request);
      return answer;
    },
  };
}

describe('provider basics', () => {
  it('emits connect with the chain id, answers eth_chainId and net_version', async () => {
    const provider = createWalletProvider({ chains: local() });
    const connected = new Promise((resolve) => provider.on('connect', resolve));
    expect(await connected).toEqual({ chainId: '0x7a69' });
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x7a69');
    expect(await provider.request({ method: 'net_version' })).toBe('31337');
  });

  it('forwards read methods to the chain RPC', async () => {
    const provider = createWalletProvider({ chains: local() });
    expect(await provider.request({ method: 'eth_getBalance', params: [ADDR0, 'pending'] })).toBe(
      '0x56bc75e2d63100000',
    );
    expect(rpc.calls.at(-1)).toEqual({ method: 'eth_getBalance', params: [ADDR0, 'pending'] });
  });

  it('passes the endpoint’s own errors through', async () => {
    const provider = createWalletProvider({ chains: local() });
    const error = await failure(provider.request({ method: 'eth_getLogs', params: [{}] }));
    expect(error.code).toBe(-32601);
  });

  it('4901 when the chain endpoint is down', async () => {
    const url = await unusedUrl();
    const provider = createWalletProvider({
      chains: [
        {
          chainId: 31337,
          chainName: 'down',
          nativeCurrency: { name: 'E', symbol: 'ETH', decimals: 18 },
          rpcUrls: [url],
        },
      ],
    });
    const error = await failure(provider.request({ method: 'eth_blockNumber' }));
    expect(error.code).toBe(4901);
  });

  it('4200 for unknown methods, -32600 for malformed requests', async () => {
    const provider = createWalletProvider({ chains: local() });
    for (const method of ['eth_sign', 'wallet_watchAsset', 'anvil_mine', 'nope']) {
      const error = await failure(provider.request({ method }));
      expect(error.code).toBe(4200);
    }
    expect((await failure(provider.request({} as never))).code).toBe(-32600);
    expect((await failure(provider.request(null as never))).code).toBe(-32600);
  });

  it('4100 for methods disabled by policy', async () => {
    const provider = createWalletProvider({
      chains: local(),
      policy: { disabledMethods: ['eth_requestAccounts', 'eth_getBalance'] },
    });
    for (const method of ['eth_requestAccounts', 'eth_getBalance']) {
      const error = await failure(provider.request({ method, params: [] }));
      expect(error.code).toBe(4100);
      expect(error.message).toBe('The requested method and/or account has not been authorized by the user.');
    }
  });

  it('close() emits disconnect and later requests are 4900', async () => {
    const wallet = createWallet({ chains: local() });
    const provider = wallet.provider('https://x.example');
    await wallet.ready;
    const events: unknown[] = [];
    provider.on('disconnect', (e) => events.push(e));
    wallet.close();
    expect(events).toHaveLength(1);
    expect((events[0] as ProviderRpcError).code).toBe(4900);
    expect((await failure(provider.request({ method: 'eth_chainId' }))).code).toBe(4900);
  });
});

describe('accounts and permissions (EIP-2255)', () => {
  it('eth_accounts is [] until connected; account methods are 4100', async () => {
    const provider = createWalletProvider({ privateKeys: [KEY0], chains: local() });
    expect(await provider.request({ method: 'eth_accounts' })).toEqual([]);
    for (const [method, params] of [
      ['personal_sign', ['0x68656c6c6f', ADDR0]],
      ['eth_signTypedData_v4', [ADDR0, '{}']],
      ['eth_sendTransaction', [{ from: ADDR0, to: TO }]],
      ['eth_signTransaction', [{ from: ADDR0, to: TO }]],
    ] as const) {
      const error = await failure(provider.request({ method, params: [...params] }));
      expect(error.code).toBe(4100);
      expect(error.message).toBe('The requested method and/or account has not been authorized by the user.');
    }
  });

  it('eth_requestAccounts asks once; yes connects and emits accountsChanged', async () => {
    const { asked, approve } = recorder(true);
    const provider = createWalletProvider({
      privateKeys: [KEY0, KEY1],
      approve,
      origin: 'https://app.example',
      chains: local(),
    });
    const changes: unknown[] = [];
    provider.on('accountsChanged', (a) => changes.push(a));
    expect(await provider.request({ method: 'eth_requestAccounts' })).toEqual([ADDR0, ADDR1]);
    expect(await provider.request({ method: 'eth_requestAccounts' })).toEqual([ADDR0, ADDR1]);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      type: 'requestAccounts',
      origin: 'https://app.example',
      accounts: [ADDR0, ADDR1],
    });
    expect(changes).toEqual([[ADDR0, ADDR1]]);
    expect(await provider.request({ method: 'eth_accounts' })).toEqual([ADDR0, ADDR1]);
    const permissions = (await provider.request({ method: 'wallet_getPermissions' })) as any[];
    expect(permissions).toHaveLength(1);
    expect(permissions[0]).toMatchObject({
      invoker: 'https://app.example',
      parentCapability: 'eth_accounts',
      caveats: [{ type: 'restrictReturnedAccounts', value: [ADDR0, ADDR1] }],
    });
    expect(typeof permissions[0].id).toBe('string');
    expect(typeof permissions[0].date).toBe('number');
  });

  it('no is 4001 and leaves the origin unconnected', async () => {
    const provider = createWalletProvider({
      privateKeys: [KEY0],
      approve: async () => false,
      chains: local(),
    });
    const error = await failure(provider.request({ method: 'eth_requestAccounts' }));
    expect(error.code).toBe(4001);
    expect(error.message).toBe('User rejected the request');
    expect(await provider.request({ method: 'eth_accounts' })).toEqual([]);
    expect(await provider.request({ method: 'wallet_getPermissions' })).toEqual([]);
  });

  it('wallet_requestPermissions grants, wallet_revokePermissions revokes', async () => {
    const { approve } = recorder(true);
    const provider = createWalletProvider({ privateKeys: [KEY0], approve, chains: local() });
    const changes: unknown[] = [];
    provider.on('accountsChanged', (a) => changes.push(a));
    const granted = (await provider.request({
      method: 'wallet_requestPermissions',
      params: [{ eth_accounts: {} }],
    })) as any[];
    expect(granted[0].parentCapability).toBe('eth_accounts');
    expect(granted[0].caveats[0].value).toEqual([ADDR0]);
    expect(
      await provider.request({ method: 'wallet_revokePermissions', params: [{ eth_accounts: {} }] }),
    ).toBeNull();
    expect(await provider.request({ method: 'eth_accounts' })).toEqual([]);
    expect(await provider.request({ method: 'wallet_getPermissions' })).toEqual([]);
    expect(changes).toEqual([[ADDR0], []]);
    const unknown = await failure(
      provider.request({ method: 'wallet_requestPermissions', params: [{ eth_magic: {} }] }),
    );
    expect(unknown.code).toBe(-32601);
    const bad = await failure(provider.request({ method: 'wallet_requestPermissions', params: [] }));
    expect(bad.code).toBe(-32602);
  });

  it('permissions are per origin', async () => {
    const wallet = createWallet({ privateKeys: [KEY0], approve: async () => true, chains: local() });
    await wallet.provider('https://a.example').request({ method: 'eth_requestAccounts' });
    expect(await wallet.provider('https://b.example').request({ method: 'eth_accounts' })).toEqual([]);
    expect(await wallet.connectedOrigins()).toEqual(['https://a.example']);
  });

  it('unlocks keystore accounts', async () => {
    const json = await encryptKeystore(KEY1, 'pw', { scrypt: { n: 1024 } });
    const wallet = createWallet({ privateKeys: [KEY0], keystore: { json, password: 'pw' }, chains: local() });
    expect(await wallet.accounts()).toEqual([ADDR0, ADDR1]);
  });
});

describe('signing', () => {
  async function connected(approve = async (_r: ApprovalRequest) => true) {
    const provider = createWalletProvider({ privateKeys: [KEY0, KEY1], approve, chains: local() });
    await provider.request({ method: 'eth_requestAccounts' });
    return provider;
  }

  it('personal_sign of text and of hex verifies with viem', async () => {
    const provider = await connected();
    const text = (await provider.request({
      method: 'personal_sign',
      params: ['hello wharf', ADDR1],
    })) as `0x${string}`;
    expect(await verifyMessage({ address: ADDR1, message: 'hello wharf', signature: text })).toBe(true);
    const hex = (await provider.request({
      method: 'personal_sign',
      params: ['0x68656c6c6f', ADDR0],
    })) as `0x${string}`;
    expect(await verifyMessage({ address: ADDR0, message: 'hello', signature: hex })).toBe(true);
    const swapped = (await provider.request({
      method: 'personal_sign',
      params: [ADDR0, '0x68656c6c6f'],
    })) as `0x${string}`;
    expect(swapped).toBe(hex);
  });

  it('personal_sign with an account the origin may not use is 4100; a no is 4001', async () => {
    let answer = true;
    const provider = await connected(async () => answer);
    const other = await failure(provider.request({ method: 'personal_sign', params: ['hi', TO] }));
    expect(other.code).toBe(4100);
    answer = false;
    const no = await failure(provider.request({ method: 'personal_sign', params: ['hi', ADDR0] }));
    expect(no.code).toBe(4001);
  });

  const typedData = {
    domain: {
      name: 'Mail',
      version: '1',
      chainId: 31337,
      verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
    },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    },
    primaryType: 'Mail',
    message: {
      from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
      to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
      contents: 'Hello, Bob!',
    },
  } as const;

  it('eth_signTypedData_v4 (JSON text or object) verifies with viem', async () => {
    const { asked, approve } = recorder(true);
    const provider = await connected(approve);
    const signature = (await provider.request({
      method: 'eth_signTypedData_v4',
      params: [ADDR0, JSON.stringify(typedData)],
    })) as `0x${string}`;
    const { EIP712Domain: _, ...types } = typedData.types;
    expect(
      await verifyTypedData({
        address: ADDR0,
        domain: typedData.domain,
        types,
        primaryType: 'Mail',
        message: typedData.message,
        signature,
      }),
    ).toBe(true);
    expect(asked.at(-1)).toMatchObject({ type: 'signTypedData', address: ADDR0 });
    const again = await provider.request({ method: 'eth_signTypedData_v4', params: [ADDR0, typedData] });
    expect(again).toBe(signature);
  });

  it('eth_signTypedData_v4 for another chain id is -32602', async () => {
    const provider = await connected();
    const error = await failure(
      provider.request({
        method: 'eth_signTypedData_v4',
        params: [ADDR0, { ...typedData, domain: { ...typedData.domain, chainId: 1 } }],
      }),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toBe('Provided chainId "1" must match the active chainId "31337"');
  });
});

describe('transactions', () => {
  async function connected(approve = async (_r: ApprovalRequest) => true) {
    const provider = createWalletProvider({ privateKeys: [KEY0], approve, chains: local() });
    await provider.request({ method: 'eth_requestAccounts' });
    return provider;
  }

  it('eth_sendTransaction: nonce (pending), gas, fees, approval, signed raw transaction', async () => {
    const { asked, approve } = recorder(true);
    const provider = await connected(approve);
    const start = rpc.calls.length;
    const hash = await provider.request({
      method: 'eth_sendTransaction',
      params: [{ from: ADDR0, to: TO, value: '0xde0b6b3a7640000' }],
    });
    expect(hash).toBe(`0x${'ab'.repeat(32)}`);
    const calls = rpc.calls.slice(start);
    expect(calls.map((c) => c.method)).toEqual([
      'eth_getTransactionCount',
      'eth_estimateGas',
      'eth_maxPriorityFeePerGas',
      'eth_getBlockByNumber',
      'eth_sendRawTransaction',
    ]);
    expect(calls[0].params).toEqual([ADDR0, 'pending']);
    expect(calls[1].params).toEqual([{ from: ADDR0, to: TO, value: '0xde0b6b3a7640000' }]);
    expect(calls[3].params).toEqual(['pending', false]);
    const raw = calls[4].params[0] as `0x${string}`;
    const tx = parseTransaction(raw);
    expect(tx).toMatchObject({
      type: 'eip1559',
      chainId: 31337,
      nonce: 5,
      to: TO.toLowerCase(),
      value: 10n ** 18n,
      gas: 21000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 2n * 7n + 1_000_000_000n,
    });
    expect(await recoverTransactionAddress({ serializedTransaction: raw as never })).toBe(ADDR0);
    expect(asked.at(-1)).toMatchObject({
      type: 'sendTransaction',
      address: ADDR0,
      chainId: '0x7a69',
      transaction: { nonce: '0x5', gas: '0x5208', type: '0x2', maxFeePerGas: '0x3b9aca0e' },
    });
  });

  it('keeps the fields the site gave, and uses legacy pricing with gasPrice', async () => {
    const provider = await connected();
    const start = rpc.calls.length;
    const raw = (await provider.request({
      method: 'eth_signTransaction',
      params: [{ to: TO, nonce: '0x9', gas: '0x7530', gasPrice: '0x3e8', data: '0x1234' }],
    })) as `0x${string}`;
    expect(rpc.calls.slice(start)).toEqual([]);
    expect(parseTransaction(raw)).toMatchObject({
      type: 'legacy',
      nonce: 9,
      gas: 30000n,
      gasPrice: 1000n,
      data: '0x1234',
      chainId: 31337,
    });
  });

  it('a rejected transaction is 4001 and nothing is sent', async () => {
    let answer = true;
    const provider = await connected(async () => answer);
    answer = false;
    const start = rpc.calls.length;
    const error = await failure(
      provider.request({ method: 'eth_sendTransaction', params: [{ from: ADDR0, to: TO }] }),
    );
    expect(error.code).toBe(4001);
    expect(rpc.calls.slice(start).map((c) => c.method)).not.toContain('eth_sendRawTransaction');
  });

  it('a transaction for another chain id is -32602; from another account is 4100', async () => {
    const provider = await connected();
    expect(
      (
        await failure(
          provider.request({ method: 'eth_sendTransaction', params: [{ to: TO, chainId: '0x1' }] }),
        )
      ).code,
    ).toBe(-32602);
    expect(
      (await failure(provider.request({ method: 'eth_sendTransaction', params: [{ from: TO, to: TO }] })))
        .code,
    ).toBe(4100);
  });
});

describe('persistence', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-wallet-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('added chains, permissions and the selected chain survive a restart (JSON file)', async () => {
    const fake = await startFakeRpc('0x2a');
    const file = join(dir, 'nested', 'wallet.json');
    const options = {
      privateKeys: [KEY0] as `0x${string}`[],
      storage: file,
      chains: local(),
      origin: 'https://m.example',
    };
    const first = createWalletProvider({ ...options, approve: async () => true });
    await first.request({ method: 'eth_requestAccounts' });
    await first.request({
      method: 'wallet_addEthereumChain',
      params: [
        {
          chainId: '0x2a',
          chainName: 'Answer',
          nativeCurrency: { name: 'A', symbol: 'ANS', decimals: 18 },
          rpcUrls: [fake.url],
        },
      ],
    });
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.chains).toEqual([
      {
        chainId: '0x2a',
        chainName: 'Answer',
        nativeCurrency: { name: 'A', symbol: 'ANS', decimals: 18 },
        rpcUrls: [fake.url],
      },
    ]);

    // restart: no approve at all, so nothing can be granted again
    const second = createWalletProvider(options);
    expect(await second.request({ method: 'eth_chainId' })).toBe('0x2a');
    expect(await second.request({ method: 'eth_accounts' })).toEqual([ADDR0]);
    expect(
      await second.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a69' }] }),
    ).toBeNull();
    expect(
      await second.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] }),
    ).toBeNull();
    await fake.close();
  });

  it('a rejected add stores nothing', async () => {
    const storage = memoryStorage();
    const fake = await startFakeRpc('0x2a');
    const provider = createWalletProvider({ storage, approve: async () => false, chains: local() });
    await failure(
      provider.request({
        method: 'wallet_addEthereumChain',
        params: [
          {
            chainId: '0x2a',
            chainName: 'A',
            nativeCurrency: { name: 'A', symbol: 'A', decimals: 18 },
            rpcUrls: [fake.url],
          },
        ],
      }),
    );
    expect(await storage.get('chains')).toBeUndefined();
    await fake.close();
  });

  it('works with any async get/set storage object', async () => {
    const data = new Map<string, unknown>();
    const storage = {
      get: async (k: string) => data.get(k),
      set: async (k: string, v: unknown) => void data.set(k, v),
    };
    const a = createWalletProvider({
      privateKeys: [KEY0],
      storage,
      approve: async () => true,
      chains: local(),
    });
    await a.request({ method: 'eth_requestAccounts' });
    const b = createWalletProvider({ privateKeys: [KEY0], storage, chains: local() });
    expect(await b.request({ method: 'eth_accounts' })).toEqual([ADDR0]);
  });
});

describe('shared storage', () => {
  it('two wallets on one file keep each other’s chains and permissions', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-wallet-shared-'));
    const file = join(dir, 'wallet.json');
    const a = createWalletProvider({
      privateKeys: [KEY0],
      storage: file,
      approve: async () => true,
      chains: local(),
      origin: 'https://a.example',
    });
    const b = createWalletProvider({
      privateKeys: [KEY0],
      storage: file,
      approve: async () => true,
      chains: local(),
      origin: 'https://b.example',
    });
    const fakeA = await startFakeRpc('0xa');
    const fakeB = await startFakeRpc('0xb');
    const add = (chainId: string, url: string) => ({
      method: 'wallet_addEthereumChain',
      params: [
        {
          chainId,
          chainName: chainId,
          nativeCurrency: { name: 'E', symbol: 'ETH', decimals: 18 },
          rpcUrls: [url],
        },
      ],
    });
    await Promise.all([
      a.request({ method: 'eth_requestAccounts' }),
      b.request({ method: 'eth_requestAccounts' }),
    ]);
    await a.request(add('0xa', fakeA.url));
    await b.request(add('0xb', fakeB.url));
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.chains.map((c: { chainId: string }) => c.chainId)).toEqual(['0xa', '0xb']);
    expect(Object.keys(saved.permissions).sort()).toEqual(['https://a.example', 'https://b.example']);
    expect(saved.selectedChains).toEqual({ 'https://a.example': '0xa', 'https://b.example': '0xb' });
    await Promise.all([fakeA.close(), fakeB.close()]);
    await rm(dir, { recursive: true, force: true });
  });
});

describe('fee fallbacks', () => {
  it('uses the latest block when the pending one has no base fee, and 1 gwei when eth_maxPriorityFeePerGas is missing', async () => {
    const fake = await startFakeRpc('0x7a69', {
      eth_getTransactionCount: () => '0x0',
      eth_estimateGas: () => '0x5208',
      eth_getBlockByNumber: ([tag]) => (tag === 'pending' ? null : { baseFeePerGas: '0x64' }),
      eth_sendRawTransaction: () => `0x${'cd'.repeat(32)}`,
    });
    const provider = createWalletProvider({
      privateKeys: [KEY0],
      approve: async () => true,
      chains: [
        {
          chainId: 31337,
          chainName: 'l',
          nativeCurrency: { name: 'E', symbol: 'ETH', decimals: 18 },
          rpcUrls: [fake.url],
        },
      ],
    });
    await provider.request({ method: 'eth_requestAccounts' });
    await provider.request({ method: 'eth_sendTransaction', params: [{ to: TO }] });
    expect(fake.calls.map((c) => c.method)).toEqual([
      'eth_getTransactionCount',
      'eth_estimateGas',
      'eth_maxPriorityFeePerGas',
      'eth_getBlockByNumber',
      'eth_getBlockByNumber',
      'eth_sendRawTransaction',
    ]);
    const tx = parseTransaction(fake.calls.at(-1)!.params[0] as `0x${string}`);
    expect(tx).toMatchObject({
      type: 'eip1559',
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 200n + 1_000_000_000n,
    });
    await fake.close();
  });

  it('sends a legacy transaction on a chain without base fee', async () => {
    const fake = await startFakeRpc('0x7a69', {
      eth_getTransactionCount: () => '0x1',
      eth_estimateGas: () => '0x5208',
      eth_maxPriorityFeePerGas: () => '0x0',
      eth_getBlockByNumber: () => ({ number: '0x1' }),
      eth_gasPrice: () => '0x77',
      eth_sendRawTransaction: () => `0x${'ef'.repeat(32)}`,
    });
    const provider = createWalletProvider({
      privateKeys: [KEY0],
      approve: async () => true,
      chains: [
        {
          chainId: 31337,
          chainName: 'l',
          nativeCurrency: { name: 'E', symbol: 'ETH', decimals: 18 },
          rpcUrls: [fake.url],
        },
      ],
    });
    await provider.request({ method: 'eth_requestAccounts' });
    await provider.request({ method: 'eth_sendTransaction', params: [{ to: TO }] });
    const tx = parseTransaction(fake.calls.at(-1)!.params[0] as `0x${string}`);
    expect(tx).toMatchObject({ type: 'legacy', gasPrice: 0x77n, nonce: 1, chainId: 31337 });
    await fake.close();
  });
});
