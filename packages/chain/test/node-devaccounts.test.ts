/** Dev accounts sign on the node (eth_sendTransaction, personal_sign, eth_sign), as in Anvil. */
import { createPublicClient, createWalletClient, defineChain, http, parseEther, verifyMessage } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc, startTestNode, type TestNode } from './node-helpers.js';

let node: TestNode;
beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node?.stop();
});

describe('dev accounts', () => {
  it('sends a transaction for an unlocked dev account and signs messages', async () => {
    const chain = defineChain({
      id: 31337,
      name: 'wharf',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const from = node.accounts[9].address;
    const wallet = createWalletClient({ chain, transport: http(node.url), account: from });
    const pub = createPublicClient({ chain, transport: http(node.url), pollingInterval: 25 });
    const hash = await wallet.sendTransaction({
      to: '0x000000000000000000000000000000000000d0d0',
      value: parseEther('2'),
    });
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.from).toBe(from);
    expect(await pub.getBalance({ address: '0x000000000000000000000000000000000000d0d0' })).toBe(
      parseEther('2'),
    );

    const signature = await wallet.signMessage({ message: 'hello wharf' });
    expect(await verifyMessage({ address: from, message: 'hello wharf', signature })).toBe(true);
    const viaEthSign = await rpc(node.url, 'eth_sign', [from, '0x68656c6c6f207768617266']);
    expect(viaEthSign).toBe(signature);

    await expect(
      rpc(node.url, 'eth_sendTransaction', [
        { from: '0x000000000000000000000000000000000000beef', to: from },
      ]),
    ).rejects.toMatchObject({ code: -32000 });
  });
});
