/**
 * Finding 8 of issue 29: the wallet refuses `personal_sign` of a Sign-In with Ethereum message
 * whose domain is not the asking site's host (EIP-4361), before any dialog; a message for the
 * asking site goes to the person as before, and the signature verifies.
 */
import { stringToHex, verifyMessage } from 'viem';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { type ApprovalRequest, createWalletProvider, siweDomainOf } from '@wharf/wallet';

const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

const siwe = (domain: string, uri = `https://${domain}/`) =>
  createSiweMessage({ address: ADDR0, chainId: 31337, domain, uri, nonce: 'abcdef0123456789', version: '1' });

async function connected(origin: string) {
  const asked: ApprovalRequest[] = [];
  const provider = createWalletProvider({
    privateKeys: [KEY0],
    origin,
    approve: async (request) => {
      asked.push(request);
      return true;
    },
  });
  await provider.request({ method: 'eth_requestAccounts' });
  asked.length = 0;
  return { provider, asked };
}

describe('personal_sign of an EIP-4361 message', () => {
  it('for another site than the asking one: refused with 4100 naming both, and nobody is asked', async () => {
    const { provider, asked } = await connected('https://evil.example');
    for (const message of [
      siwe('wharf.example.com'),
      stringToHex(siwe('wharf.example.com')),
      siwe('EVIL.example.org'),
    ]) {
      await expect(
        provider.request({ method: 'personal_sign', params: [message, ADDR0] }),
      ).rejects.toMatchObject({
        code: 4100,
        message: expect.stringMatching(
          /Sign-In with Ethereum refused: the message signs in to .*, but https:\/\/evil\.example is asking/,
        ),
      });
    }
    expect(asked).toEqual([]);
  });

  it('for the asking site (any letter case, with its port): asked, signed, verifiable', async () => {
    const { provider, asked } = await connected('http://localhost:3000');
    const message = siwe('localhost:3000', 'http://localhost:3000/').replace(/^localhost/, 'LocalHost');
    const signature = (await provider.request({
      method: 'personal_sign',
      params: [message, ADDR0],
    })) as `0x${string}`;
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ type: 'signMessage', origin: 'http://localhost:3000', message });
    expect(await verifyMessage({ address: ADDR0, message, signature })).toBe(true);
  });

  it('other messages, and the wallet’s own origin, are not held to the rule', async () => {
    const site = await connected('https://shop.example');
    await site.provider.request({ method: 'personal_sign', params: ['hello wharf.example.com', ADDR0] });
    expect(site.asked).toHaveLength(1);
    const own = await connected('wharf://wallet');
    await own.provider.request({ method: 'personal_sign', params: [siwe('wharf.example.com'), ADDR0] });
    expect(own.asked).toHaveLength(1);
    expect(siweDomainOf(siwe('a.example:8443'))).toBe('a.example:8443');
    expect(siweDomainOf('not a sign-in')).toBeUndefined();
  });
});
