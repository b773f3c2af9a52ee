import { createWalletClient, custom, defineChain, parseEther, parseTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletProvider } from '@wharf/wallet';
import { type FakeRpc, startFakeRpc } from './fakeRpc.js';

const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const TO = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

let rpc: FakeRpc;
const sent: string[] = [];
beforeAll(async () => {
  rpc = await startFakeRpc('0x2a', {
    eth_getTransactionCount: () => '0x0',
    eth_estimateGas: () => '0x5208',
    eth_maxPriorityFeePerGas: () => '0x1',
    eth_getBlockByNumber: () => ({ baseFeePerGas: '0x3b9aca00' }),
    eth_sendRawTransaction: ([raw]) => {
      sent.push(raw as string);
      return `0x${'12'.repeat(32)}`;
    },
  });
});
afterAll(() => rpc.close());

describe("viem's wallet actions through the provider", () => {
  it('addChain, switchChain, requestAddresses, sendTransaction', async () => {
    const answer = defineChain({
      id: 42,
      name: 'Answer',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [rpc.url] } },
    });
    const provider = createWalletProvider({ privateKeys: [KEY0], approve: async () => true });
    const client = createWalletClient({ transport: custom(provider) });

    await expect(client.switchChain({ id: 42 })).rejects.toMatchObject({ code: 4902 });
    await client.addChain({ chain: answer });
    expect(await client.getChainId()).toBe(42);
    await client.switchChain({ id: 31337 });
    expect(await client.getChainId()).toBe(31337);
    await client.switchChain({ id: 42 });

    expect(await client.requestAddresses()).toEqual([ADDR0]);
    const hash = await client.sendTransaction({
      account: ADDR0,
      chain: answer,
      to: TO,
      value: parseEther('1'),
    });
    expect(hash).toBe(`0x${'12'.repeat(32)}`);
    expect(parseTransaction(sent[0] as `0x${string}`)).toMatchObject({
      chainId: 42,
      to: TO.toLowerCase(),
      value: 10n ** 18n,
    });
  });
});
