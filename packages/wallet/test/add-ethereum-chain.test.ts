import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalRequest, createWalletProvider, ProviderRpcError } from '@wharf/wallet';
import { type FakeRpc, startFakeRpc, unusedUrl } from './fakeRpc.js';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

let rpc: FakeRpc;
let otherRpc: FakeRpc;
beforeAll(async () => {
  rpc = await startFakeRpc('0x2a');
  otherRpc = await startFakeRpc('0x2a');
});
afterAll(async () => {
  await rpc.close();
  await otherRpc.close();
});

function chain(overrides: Record<string, unknown> = {}) {
  return {
    chainId: '0x2a',
    chainName: 'Answer',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: [rpc?.url ?? 'https://rpc.example'],
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<ProviderRpcError> {
  try {
    await promise;
  } catch (error) {
    return error as ProviderRpcError;
  }
  throw new Error('expected the request to fail');
}

const yes = async () => true;
const record = (list: ApprovalRequest[]) => async (request: ApprovalRequest) => {
  list.push(request);
  return true;
};

describe('wallet_addEthereumChain validation (-32602, MetaMask wording)', () => {
  const cases: [string, unknown, string][] = [
    ['params[0] missing', undefined, 'Expected single, object parameter. Received:\nundefined'],
    ['params[0] a string', '0x2a', 'Expected single, object parameter. Received:\n"0x2a"'],
    ['params[0] an array', [1], 'Expected single, object parameter. Received:\n[1]'],
    [
      'unexpected keys',
      chain({ foo: 1, bar: 2 }),
      'Received unexpected keys on object parameter. Unsupported keys:\nfoo,bar',
    ],
    [
      'chainId missing',
      chain({ chainId: undefined }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\nundefined",
    ],
    [
      'chainId decimal string',
      chain({ chainId: '42' }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n42",
    ],
    [
      'chainId a number',
      chain({ chainId: 42 }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n42",
    ],
    [
      'chainId zero-padded',
      chain({ chainId: '0x02a' }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n0x02a",
    ],
    [
      'chainId zero',
      chain({ chainId: '0x0' }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n0x0",
    ],
    [
      'chainId bare 0x',
      chain({ chainId: '0x' }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n0x",
    ],
    [
      'chainId not hex',
      chain({ chainId: '0xzz' }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n0xzz",
    ],
    [
      'chainId without 0x',
      chain({ chainId: '2a' }),
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n2a",
    ],
    [
      'chainId above the max',
      chain({ chainId: '0x10000000000000' }),
      'Invalid chain ID "0x10000000000000": numerical value greater than max safe value. Received:\n0x10000000000000',
    ],
    [
      'chainId max + 1',
      chain({ chainId: '0xfffffffffffed' }),
      'Invalid chain ID "0xfffffffffffed": numerical value greater than max safe value. Received:\n0xfffffffffffed',
    ],
    [
      'chainId upper-case above the max',
      chain({ chainId: '0xFFFFFFFFFFFFFFFF' }),
      'Invalid chain ID "0xffffffffffffffff": numerical value greater than max safe value. Received:\n0xFFFFFFFFFFFFFFFF',
    ],
    [
      'rpcUrls missing',
      chain({ rpcUrls: undefined }),
      "Expected an array with at least one valid string HTTPS url 'rpcUrls', Received:\nundefined",
    ],
    [
      'rpcUrls empty',
      chain({ rpcUrls: [] }),
      "Expected an array with at least one valid string HTTPS url 'rpcUrls', Received:\n",
    ],
    [
      'rpcUrls a string',
      chain({ rpcUrls: 'https://rpc.example' }),
      "Expected an array with at least one valid string HTTPS url 'rpcUrls', Received:\nhttps://rpc.example",
    ],
    [
      'rpcUrls http remote',
      chain({ rpcUrls: ['http://rpc.example'] }),
      "Expected an array with at least one valid string HTTPS url 'rpcUrls', Received:\nhttp://rpc.example",
    ],
    [
      'rpcUrls not URLs',
      chain({ rpcUrls: ['not a url', 42] }),
      "Expected an array with at least one valid string HTTPS url 'rpcUrls', Received:\nnot a url,42",
    ],
    [
      'rpcUrls ws on a remote host',
      chain({ rpcUrls: ['wss://rpc.example'] }),
      "Expected an array with at least one valid string HTTPS url 'rpcUrls', Received:\nwss://rpc.example",
    ],
    [
      'chainName missing',
      chain({ chainName: undefined }),
      "Expected non-empty string 'chainName'. Received:\nundefined",
    ],
    ['chainName empty', chain({ chainName: '' }), "Expected non-empty string 'chainName'. Received:\n"],
    ['chainName a number', chain({ chainName: 7 }), "Expected non-empty string 'chainName'. Received:\n7"],
    [
      'nativeCurrency missing',
      chain({ nativeCurrency: undefined }),
      "Expected null or object 'nativeCurrency'. Received:\nundefined",
    ],
    [
      'nativeCurrency a string',
      chain({ nativeCurrency: 'ETH' }),
      "Expected null or object 'nativeCurrency'. Received:\nETH",
    ],
    [
      'nativeCurrency an array',
      chain({ nativeCurrency: ['ETH'] }),
      "Expected null or object 'nativeCurrency'. Received:\nETH",
    ],
    [
      'decimals missing',
      chain({ nativeCurrency: { name: 'E', symbol: 'ETH' } }),
      "Expected an integer from 0 to 36 for 'nativeCurrency.decimals' when 'nativeCurrency' is provided. Received: undefined",
    ],
    [
      'decimals negative',
      chain({ nativeCurrency: { name: 'E', symbol: 'ETH', decimals: -1 } }),
      "Expected an integer from 0 to 36 for 'nativeCurrency.decimals' when 'nativeCurrency' is provided. Received: -1",
    ],
    [
      'decimals 37',
      chain({ nativeCurrency: { name: 'E', symbol: 'ETH', decimals: 37 } }),
      "Expected an integer from 0 to 36 for 'nativeCurrency.decimals' when 'nativeCurrency' is provided. Received: 37",
    ],
    [
      'decimals fractional',
      chain({ nativeCurrency: { name: 'E', symbol: 'ETH', decimals: 1.5 } }),
      "Expected an integer from 0 to 36 for 'nativeCurrency.decimals' when 'nativeCurrency' is provided. Received: 1.5",
    ],
    [
      'decimals a string',
      chain({ nativeCurrency: { name: 'E', symbol: 'ETH', decimals: '18' } }),
      "Expected an integer from 0 to 36 for 'nativeCurrency.decimals' when 'nativeCurrency' is provided. Received: 18",
    ],
    [
      'symbol missing',
      chain({ nativeCurrency: { name: 'E', decimals: 18 } }),
      "Expected a string 'nativeCurrency.symbol'. Received: undefined",
    ],
    [
      'symbol empty',
      chain({ nativeCurrency: { name: 'E', symbol: '', decimals: 18 } }),
      "Expected a string 'nativeCurrency.symbol'. Received: ",
    ],
    [
      'symbol a number',
      chain({ nativeCurrency: { name: 'E', symbol: 5, decimals: 18 } }),
      "Expected a string 'nativeCurrency.symbol'. Received: 5",
    ],
    [
      'symbol 7 characters',
      chain({ nativeCurrency: { name: 'E', symbol: 'TOOLONG', decimals: 18 } }),
      "Expected 1-6 character string 'nativeCurrency.symbol'. Received:\nTOOLONG",
    ],
  ];

  it.each(cases)('%s', async (_name, param, message) => {
    const asked: ApprovalRequest[] = [];
    const provider = createWalletProvider({ approve: record(asked) });
    const error = await failure(provider.request({ method: 'wallet_addEthereumChain', params: [param] }));
    expect(error).toBeInstanceOf(ProviderRpcError);
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(message);
    expect(asked).toEqual([]);
  });

  const accepted: [string, Record<string, unknown>][] = [
    ['upper-case hex chain id', { chainId: '0x2A' }],
    ['decimals 0', { nativeCurrency: { name: 'Zero', symbol: 'ZRO', decimals: 0 } }],
    ['decimals 36', { nativeCurrency: { name: 'Big', symbol: 'BIG', decimals: 36 } }],
    ['decimals 6 (EIP-3085, not only 18)', { nativeCurrency: { name: 'USD', symbol: 'USD', decimals: 6 } }],
    ['symbol of 1 character', { nativeCurrency: { name: 'X', symbol: 'X', decimals: 18 } }],
    ['symbol of 6 characters', { nativeCurrency: { name: 'SIXSIX', symbol: 'SIXSIX', decimals: 18 } }],
    [
      'iconUrls and blockExplorerUrls',
      { iconUrls: ['https://icons.example/a.svg'], blockExplorerUrls: ['https://scan.example'] },
    ],
    ['first usable URL after a bad one', { rpcUrls: ['http://remote.example', 'ftp://x', 'RPC'] }],
    ['localhost http', { rpcUrls: [] }],
  ];

  it.each(accepted)('accepts %s', async (name, overrides) => {
    let fake: FakeRpc | undefined;
    const params = chain(overrides);
    if (name === 'first usable URL after a bad one')
      params.rpcUrls = ['http://remote.example', 'ftp://x', rpc.url];
    if (name === 'localhost http') {
      fake = await startFakeRpc('0x2a');
      params.rpcUrls = [fake.url.replace('127.0.0.1', 'localhost')];
    }
    const asked: ApprovalRequest[] = [];
    const provider = createWalletProvider({ approve: record(asked) });
    await expect(
      provider.request({ method: 'wallet_addEthereumChain', params: [params] }),
    ).resolves.toBeNull();
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x2a');
    expect(asked).toHaveLength(1);
    await fake?.close();
  });

  it('cuts chainName to 100 characters', async () => {
    const asked: ApprovalRequest[] = [];
    const provider = createWalletProvider({ approve: record(asked) });
    await provider.request({
      method: 'wallet_addEthereumChain',
      params: [chain({ chainName: 'n'.repeat(150) })],
    });
    const request = asked[0];
    expect(request.type).toBe('addEthereumChain');
    if (request.type === 'addEthereumChain') expect(request.chain.chainName).toBe('n'.repeat(100));
  });

  it('accepts the largest safe chain id', async () => {
    const fake = await startFakeRpc('0xfffffffffffec');
    const provider = createWalletProvider({ approve: yes });
    await expect(
      provider.request({
        method: 'wallet_addEthereumChain',
        params: [chain({ chainId: '0xfffffffffffec', rpcUrls: [fake.url] })],
      }),
    ).resolves.toBeNull();
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0xfffffffffffec');
    await fake.close();
  });
});

describe('wallet_addEthereumChain: endpoint, approval and events', () => {
  it('4902 Unrecognized chain ID when the endpoint reports another chain, with data.chainId', async () => {
    const asked: ApprovalRequest[] = [];
    const provider = createWalletProvider({ approve: record(asked) });
    const error = await failure(
      provider.request({ method: 'wallet_addEthereumChain', params: [chain({ chainId: '0x2b' })] }),
    );
    expect(error.code).toBe(4902);
    expect(error.message).toBe('Unrecognized chain ID');
    expect(error.data).toEqual({ chainId: '0x2a' });
    expect(asked).toEqual([]);
  });

  it('-32603 when the endpoint is unreachable', async () => {
    const url = await unusedUrl();
    const provider = createWalletProvider({ approve: yes });
    const error = await failure(
      provider.request({ method: 'wallet_addEthereumChain', params: [chain({ rpcUrls: [url] })] }),
    );
    expect(error.code).toBe(-32603);
    expect(error.message).toBe(`Request for method 'eth_chainId on ${url} failed`);
  });

  it('4001 User rejected the request: nothing stored, no event', async () => {
    const events: unknown[] = [];
    const provider = createWalletProvider({ approve: async () => false });
    provider.on('chainChanged', (id) => events.push(id));
    const error = await failure(provider.request({ method: 'wallet_addEthereumChain', params: [chain()] }));
    expect(error.code).toBe(4001);
    expect(error.message).toBe('User rejected the request');
    expect(events).toEqual([]);
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x7a69');
    const switchError = await failure(
      provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] }),
    );
    expect(switchError.code).toBe(4902);
  });

  it('without approve every approval is 4001', async () => {
    const provider = createWalletProvider();
    const error = await failure(provider.request({ method: 'wallet_addEthereumChain', params: [chain()] }));
    expect(error.code).toBe(4001);
  });

  it('approved: the request names the origin and chain, switches, emits chainChanged once', async () => {
    const asked: ApprovalRequest[] = [];
    const events: unknown[] = [];
    const provider = createWalletProvider({
      origin: 'https://mini.example',
      approve: record(asked),
    });
    provider.on('chainChanged', (id) => events.push(id));
    await expect(
      provider.request({ method: 'wallet_addEthereumChain', params: [chain()] }),
    ).resolves.toBeNull();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      type: 'addEthereumChain',
      origin: 'https://mini.example',
      method: 'wallet_addEthereumChain',
      chain: {
        chainId: '0x2a',
        chainName: 'Answer',
        rpcUrls: [rpc.url],
        nativeCurrency: { symbol: 'ETH', decimals: 18 },
      },
    });
    expect(events).toEqual(['0x2a']);
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x2a');
    expect(await provider.request({ method: 'net_version' })).toBe('42');
  });

  it('the same chain and RPC URL again succeeds without asking', async () => {
    let asks = 0;
    const events: unknown[] = [];
    const provider = createWalletProvider({
      approve: async () => {
        asks++;
        return true;
      },
    });
    provider.on('chainChanged', (id) => events.push(id));
    await provider.request({ method: 'wallet_addEthereumChain', params: [chain()] });
    await provider.request({
      method: 'wallet_addEthereumChain',
      params: [chain({ rpcUrls: [`${rpc.url}/`] })],
    });
    expect(asks).toBe(1);
    expect(events).toEqual(['0x2a']);
    // back on another chain: adding the known chain switches without asking
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x7a69' }] });
    await provider.request({ method: 'wallet_addEthereumChain', params: [chain()] });
    expect(asks).toBe(1);
    expect(events).toEqual(['0x2a', '0x7a69', '0x2a']);
  });

  it('a new RPC URL for a known chain asks and is added to that chain', async () => {
    const asked: ApprovalRequest[] = [];
    const provider = createWalletProvider({ approve: record(asked) });
    await provider.request({ method: 'wallet_addEthereumChain', params: [chain()] });
    await provider.request({
      method: 'wallet_addEthereumChain',
      params: [chain({ rpcUrls: [otherRpc.url] })],
    });
    expect(asked).toHaveLength(2);
    const second = asked[1];
    expect(second.type === 'addEthereumChain' && second.existingChain?.rpcUrls).toEqual([rpc.url]);
    expect(second.type === 'addEthereumChain' && second.chain.rpcUrls).toEqual([otherRpc.url, rpc.url]);
    const before = otherRpc.calls.length;
    await provider.request({ method: 'eth_blockNumber' }).catch(() => undefined);
    expect(otherRpc.calls.slice(before).map((c) => c.method)).toEqual(['eth_blockNumber']);
  });

  it('a different currency symbol for a known chain is -32602', async () => {
    const provider = createWalletProvider({ approve: yes });
    const error = await failure(
      provider.request({
        method: 'wallet_addEthereumChain',
        params: [chain({ chainId: '0x7a69', nativeCurrency: { name: 'X', symbol: 'XYZ', decimals: 18 } })],
      }),
    );
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(
      'nativeCurrency.symbol does not match currency symbol for a network the user already has added with the same chainId. Received:\nXYZ',
    );
  });

  it('one pending approval per origin: a second is -32002, other origins are not blocked', async () => {
    let release: (v: boolean) => void = () => undefined;
    let waiting: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const { createWallet } = await import('@wharf/wallet');
    const wallet = createWallet({
      privateKeys: [KEY],
      approve: (r) =>
        r.origin === 'https://a.example' && r.type === 'addEthereumChain'
          ? new Promise<boolean>((resolve) => {
              release = resolve;
              waiting();
            })
          : true,
    });
    const a = wallet.provider('https://a.example');
    const b = wallet.provider('https://b.example');
    const first = a.request({ method: 'wallet_addEthereumChain', params: [chain()] });
    await asked;
    const second = await failure(a.request({ method: 'eth_requestAccounts' }));
    expect(second.code).toBe(-32002);
    expect(second.message).toBe(
      "Request of type 'wallet_requestPermissions' already pending for origin https://a.example. Please wait.",
    );
    const third = await failure(
      a.request({ method: 'wallet_addEthereumChain', params: [chain({ rpcUrls: [otherRpc.url] })] }),
    );
    expect(third.code).toBe(-32002);
    await expect(b.request({ method: 'eth_requestAccounts' })).resolves.toHaveLength(1);
    release(true);
    await expect(first).resolves.toBeNull();
    await expect(a.request({ method: 'eth_requestAccounts' })).resolves.toHaveLength(1);
  });

  it('4100 when adding chains is disabled by policy', async () => {
    const provider = createWalletProvider({
      approve: yes,
      policy: { disabledMethods: ['wallet_addEthereumChain'] },
    });
    const error = await failure(provider.request({ method: 'wallet_addEthereumChain', params: [chain()] }));
    expect(error.code).toBe(4100);
    expect(error.message).toBe('The requested method and/or account has not been authorized by the user.');
  });
});

describe('wallet_switchEthereumChain', () => {
  it('switches to a known chain and emits chainChanged once; same chain is quiet', async () => {
    const events: unknown[] = [];
    const provider = createWalletProvider({
      chains: [
        {
          chainId: 31337,
          chainName: 'local',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [rpc.url],
        },
        {
          chainId: '0x2a',
          chainName: 'answer',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [rpc.url],
        },
      ],
    });
    provider.on('chainChanged', (id) => events.push(id));
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x7a69');
    await expect(
      provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] }),
    ).resolves.toBeNull();
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2A' }] });
    expect(events).toEqual(['0x2a']);
  });

  it('4902 for an unknown chain, with data.chainId', async () => {
    const provider = createWalletProvider();
    const error = await failure(
      provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x1' }] }),
    );
    expect(error.code).toBe(4902);
    expect(error.message).toBe('Unrecognized chain ID');
    expect(error.data).toEqual({ chainId: '0x1' });
  });

  const invalid: [string, unknown, string][] = [
    ['no params', undefined, 'Expected params object or array. Received:\nundefined'],
    ['params not an array', { chainId: '0x1' }, 'Expected params array. Received:\n{"chainId":"0x1"}'],
    ['params[0] not an object', ['0x1'], 'Expected single, object parameter. Received:\n["0x1"]'],
    [
      'unexpected keys',
      [{ chainId: '0x1', name: 'x' }],
      'Received unexpected keys on object parameter. Unsupported keys:\nname',
    ],
    [
      'padded chain id',
      [{ chainId: '0x01' }],
      "Expected 0x-prefixed, unpadded, non-zero hexadecimal string 'chainId'. Received:\n0x01",
    ],
    [
      'too large chain id',
      [{ chainId: '0x10000000000000' }],
      'Invalid chain ID "0x10000000000000": numerical value greater than max safe value. Received:\n0x10000000000000',
    ],
  ];
  it.each(invalid)('-32602 for %s', async (_name, params, message) => {
    const provider = createWalletProvider();
    const error = await failure(provider.request({ method: 'wallet_switchEthereumChain', params }));
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(message);
  });

  it('switch -> 4902 -> add -> switch (the dance wagmi performs)', async () => {
    const events: unknown[] = [];
    const provider = createWalletProvider({ approve: yes });
    provider.on('chainChanged', (id) => events.push(id));
    const error = await failure(
      provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] }),
    );
    expect(error.code).toBe(4902);
    await provider.request({ method: 'wallet_addEthereumChain', params: [chain()] });
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] });
    expect(events).toEqual(['0x2a']);
  });
});

describe('policy.confirmChainSwitch', () => {
  it('asks before switching; no is 4001 and the chain stays', async () => {
    const asked: ApprovalRequest[] = [];
    let answer = false;
    const provider = createWalletProvider({
      policy: { confirmChainSwitch: true },
      approve: async (r) => {
        asked.push(r);
        return answer;
      },
      chains: [
        {
          chainId: 31337,
          chainName: 'local',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [rpc.url],
        },
        {
          chainId: 42,
          chainName: 'answer',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [rpc.url],
        },
      ],
    });
    const error = await failure(
      provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] }),
    );
    expect(error.code).toBe(4001);
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x7a69');
    expect(asked[0]).toMatchObject({
      type: 'switchEthereumChain',
      fromChainId: '0x7a69',
      chain: { chainId: '0x2a' },
    });
    answer = true;
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] });
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x2a');
    // already there: nothing to ask
    await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2a' }] });
    expect(asked).toHaveLength(2);
  });
});
