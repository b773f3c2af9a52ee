import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalRequest, createWallet } from '@wharf/wallet';
import {
  announceProvider,
  BRIDGE_CHANNEL,
  createBridgeProvider,
  createBridgeServer,
  type EIP6963ProviderDetail,
  endpointPair,
  iframeEndpoint,
  installIframeWallet,
  type MessageEventLike,
  ProviderRpcError,
} from '@wharf/wallet/bridge';
import { type FakeRpc, startFakeRpc } from './fakeRpc.js';

const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

let rpc: FakeRpc;
beforeAll(async () => {
  rpc = await startFakeRpc('0x2a');
});
afterAll(() => rpc.close());

const tick = () => new Promise((r) => setTimeout(r, 20));

/** A fake browser window: an EventTarget with postMessage that delivers to its own listeners. */
class FakeWindow extends EventTarget {
  ethereum?: unknown;
  constructor(readonly origin: string) {
    super();
  }
  /** Who posts into this window: the sender and its origin, set by `link`. */
  peer?: FakeWindow;
  postMessage(data: unknown, targetOrigin: string) {
    if (targetOrigin !== '*' && targetOrigin !== this.origin) return; // the browser drops it
    const event = Object.assign(new Event('message'), {
      data: structuredClone(data),
      origin: this.peer!.origin,
      source: this.peer,
    });
    setTimeout(() => this.dispatchEvent(event), 0);
  }
}

function frames() {
  const app = new FakeWindow('http://127.0.0.1:3000');
  const mini = new FakeWindow('https://mini.example');
  app.peer = mini;
  mini.peer = app;
  return { app, mini };
}

const asHost = (w: FakeWindow) =>
  w as unknown as {
    addEventListener(t: 'message', l: (e: MessageEventLike) => void): void;
    removeEventListener(t: 'message', l: (e: MessageEventLike) => void): void;
  };

describe('bridge', () => {
  it('answers requests, passes errors and events over an in-memory pair', async () => {
    const asked: ApprovalRequest[] = [];
    const wallet = createWallet({
      privateKeys: [KEY0],
      approve: async (r) => {
        asked.push(r);
        return r.type !== 'signMessage';
      },
    });
    const [appSide, miniSide] = endpointPair();
    const server = createBridgeServer({
      provider: wallet.provider('https://mini.example'),
      endpoint: appSide,
    });
    const client = createBridgeProvider({ endpoint: miniSide });
    const connect = new Promise((resolve) => client.on('connect', resolve));
    expect(await connect).toEqual({ chainId: '0x7a69' });
    expect(client.isConnected()).toBe(true);

    const accountsChanged: unknown[] = [];
    client.on('accountsChanged', (a) => accountsChanged.push(a));
    expect(await client.request({ method: 'eth_requestAccounts' })).toEqual([ADDR0]);
    expect(asked[0].origin).toBe('https://mini.example');

    const error = (await client
      .request({ method: 'personal_sign', params: ['hi', ADDR0] })
      .catch((e: ProviderRpcError) => e)) as ProviderRpcError;
    expect(error).toBeInstanceOf(ProviderRpcError);
    expect(error.code).toBe(4001);
    expect(error.message).toBe('User rejected the request');

    const chainChanged: unknown[] = [];
    client.on('chainChanged', (id) => chainChanged.push(id));
    await client.request({
      method: 'wallet_addEthereumChain',
      params: [
        {
          chainId: '0x2a',
          chainName: 'A',
          nativeCurrency: { name: 'A', symbol: 'A', decimals: 18 },
          rpcUrls: [rpc.url],
        },
      ],
    });
    await tick();
    expect(chainChanged).toEqual(['0x2a']);
    expect(client.chainId).toBe('0x2a');
    expect(accountsChanged).toEqual([[ADDR0]]);
    expect(((await client.request({ method: 'nope' }).catch((e) => e)) as ProviderRpcError).code).toBe(4200);

    server.close();
    client.close();
    expect(((await client.request({ method: 'eth_chainId' }).catch((e) => e)) as ProviderRpcError).code).toBe(
      4900,
    );
  });

  it('postMessage endpoints: only the iframe at its origin is answered', async () => {
    const { app, mini } = frames();
    const wallet = createWallet({ privateKeys: [KEY0] });
    const server = createBridgeServer({
      provider: wallet.provider(mini.origin),
      endpoint: iframeEndpoint({ frame: mini, origin: mini.origin, host: asHost(app) }),
    });
    const announced: EIP6963ProviderDetail[] = [];
    mini.addEventListener('eip6963:announceProvider', (e) => announced.push((e as CustomEvent).detail));
    const { provider, stop } = installIframeWallet({
      parentOrigin: app.origin,
      windows: { self: mini as never, parent: app },
    });
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x7a69');
    expect(mini.ethereum).toBe(provider);

    // EIP-6963: announced at once and again on request
    expect(announced).toHaveLength(1);
    mini.dispatchEvent(new Event('eip6963:requestProvider'));
    expect(announced).toHaveLength(2);
    expect(announced[1]).toBe(announced[0]);
    expect(announced[0].provider).toBe(provider);
    expect(announced[0].info).toMatchObject({ name: 'wharf', rdns: 'dev.wharf.wallet' });
    expect(announced[0].info.icon).toMatch(/^data:image\/svg\+xml,/);
    expect(announced[0].info.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Object.isFrozen(announced[0])).toBe(true);

    // a message from another origin is ignored by the server
    const answers: unknown[] = [];
    const spoof = Object.assign(new Event('message'), {
      data: { channel: BRIDGE_CHANNEL, kind: 'request', id: 99, method: 'eth_chainId' },
      origin: 'https://evil.example',
      source: mini,
    });
    mini.addEventListener('message', (e) => answers.push((e as unknown as MessageEventLike).data));
    app.dispatchEvent(spoof);
    await tick();
    expect(answers.filter((a) => (a as { id?: number }).id === 99)).toEqual([]);

    stop();
    server.close();
  });

  it('announceProvider works on any EventTarget and stops answering after stop()', () => {
    const target = new EventTarget();
    const seen: unknown[] = [];
    target.addEventListener('eip6963:announceProvider', (e) => seen.push((e as CustomEvent).detail));
    const provider = { request: async () => null };
    const { stop, detail } = announceProvider({ provider, info: { name: 'custom' }, target });
    expect(detail.info.name).toBe('custom');
    stop();
    target.dispatchEvent(new Event('eip6963:requestProvider'));
    expect(seen).toHaveLength(1);
  });
});

describe('browser safety', () => {
  it('no file but the JSON file storage imports node: modules', async () => {
    const root = join(import.meta.dirname, '..', 'src');
    const offenders: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (path.endsWith('.ts') && !path.endsWith('jsonFileStorage.ts')) {
          const text = await readFile(path, 'utf8');
          if (/from\s+['"]node:|import\(\s*['"]node:|require\(/.test(text)) offenders.push(path);
        }
      }
    };
    await walk(root);
    expect(offenders).toEqual([]);
  });
});

describe('bridge handshake', () => {
  it('holds requests until the app’s server starts, then answers them', async () => {
    const [appSide, miniSide] = endpointPair();
    const client = createBridgeProvider({ endpoint: miniSide });
    const answer = client.request({ method: 'eth_chainId' });
    await tick();
    const wallet = createWallet({});
    const server = createBridgeServer({
      provider: wallet.provider('https://late.example'),
      endpoint: appSide,
    });
    expect(await answer).toBe('0x7a69');
    server.close();
    client.close();
  });
});

describe('a keystore that cannot be unlocked', () => {
  it('fails every request with -32603 and the reason', async () => {
    const { encryptKeystore } = await import('@wharf/wallet');
    const json = await encryptKeystore(KEY0, 'right', { scrypt: { n: 1024 } });
    const wallet = createWallet({ keystore: { json, password: 'wrong' } });
    const error = (await wallet
      .provider('x')
      .request({ method: 'eth_chainId' })
      .catch((e) => e)) as ProviderRpcError;
    expect(error.code).toBe(-32603);
    expect(error.message).toBe('invalid password');
  });
});
