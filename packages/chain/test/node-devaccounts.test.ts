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

describe('dev accounts from the mnemonic', () => {
  it("are Anvil's and Hardhat's for the default mnemonic", () => {
    expect(node.accounts[0].address.toLowerCase()).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(node.accounts[0].privateKey).toBe(
      '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    );
    expect(node.accounts[9].address.toLowerCase()).toBe('0xa0ee7a142d267c1f36714e4a8f75612f20a79720');
  });

  it('refuse to start with a mistyped word, naming the mnemonic as invalid and the word', async () => {
    await expect(
      startTestNode({ mnemonic: 'test test test test test test test test test test test junkk' }),
    ).rejects.toThrow(
      'the mnemonic is not a valid BIP-39 mnemonic: word 12 ("junkk") is not in the English word list',
    );
  });

  it('refuse to start when the words are all real but the checksum fails', async () => {
    await expect(
      startTestNode({ mnemonic: 'test test test test test test test test test test test test' }),
    ).rejects.toThrow('the mnemonic is not a valid BIP-39 mnemonic: its checksum does not match');
  });

  it('refuse a mnemonic of the wrong length', async () => {
    await expect(startTestNode({ mnemonic: 'test junk' })).rejects.toThrow(
      'the mnemonic is not a valid BIP-39 mnemonic: it has 2 words, want 12, 15, 18, 21 or 24',
    );
  });
});
