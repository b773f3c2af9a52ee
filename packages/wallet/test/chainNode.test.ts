/**
 * Against a real wharf chain node, over the wire (the wallet never imports the chain package).
 * Runs when WHARF_CHAIN_RPC names a running node (e.g. `wharf up` -> http://127.0.0.1:8545)
 * whose dev accounts come from the default mnemonic; skipped otherwise.
 */
import { describe, expect, it } from 'vitest';
import { createWalletProvider } from '@wharf/wallet';

const url = process.env.WHARF_CHAIN_RPC;
const KEY0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const TO = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';

describe.skipIf(!url)('against a running chain node (WHARF_CHAIN_RPC)', () => {
  it('sends a transfer with eth_sendTransaction; the pending balance shows it', async () => {
    const chainId = (await fetch(url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    }).then((r) => r.json())) as { result: string };
    const provider = createWalletProvider({
      privateKeys: [KEY0],
      approve: async () => true,
      chains: [
        {
          chainId: chainId.result,
          chainName: 'wharf',
          nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
          rpcUrls: [url!],
        },
      ],
    });
    const [from] = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
    const before = BigInt(
      (await provider.request({ method: 'eth_getBalance', params: [TO, 'pending'] })) as string,
    );
    const hash = await provider.request({
      method: 'eth_sendTransaction',
      params: [{ from, to: TO, value: '0x2386f26fc10000' }],
    });
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    let after = before;
    for (let i = 0; i < 50 && after === before; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = BigInt(
        (await provider.request({ method: 'eth_getBalance', params: [TO, 'pending'] })) as string,
      );
    }
    expect(after - before).toBe(10n ** 16n);
  });
});
