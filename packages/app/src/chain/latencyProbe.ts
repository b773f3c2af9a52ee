/**
 * Submit-to-pending latency: sign a zero-value self-transfer from the last dev account, then time
 * from eth_sendRawTransaction to the moment the transaction is in the pending block (or has
 * a receipt). Signing and fee lookups happen before the clock starts.
 */
import { rpc } from '../api/rpc.js';
import { devAccounts } from '../auth/devAccounts.js';

export interface ProbeResult {
  hash: string;
  latencyMs: number;
}

export async function probeLatency(
  rpcUrl: string,
  chainId: number,
  timeoutMs = 10_000,
): Promise<ProbeResult> {
  const accounts = await devAccounts();
  const account = accounts[accounts.length - 1];
  const [nonce, gasPrice] = await Promise.all([
    rpc<string>(rpcUrl, 'eth_getTransactionCount', [account.address, 'pending']),
    rpc<string>(rpcUrl, 'eth_gasPrice'),
  ]);
  const maxFeePerGas = BigInt(gasPrice) * 2n;
  const signed = await account.signTransaction({
    type: 'eip1559',
    chainId,
    nonce: Number(BigInt(nonce)),
    to: account.address,
    value: 0n,
    gas: 21_000n,
    maxFeePerGas,
    maxPriorityFeePerGas: maxFeePerGas < 1_000_000n ? maxFeePerGas : 1_000_000n,
  });
  const started = performance.now();
  const hash = await rpc<string>(rpcUrl, 'eth_sendRawTransaction', [signed]);
  while (performance.now() - started < timeoutMs) {
    // In the pending block (pre-confirmed), or already sealed: either way it is in.
    const [pending, receipt] = await Promise.all([
      rpc<{ transactions?: string[] } | null>(rpcUrl, 'eth_getBlockByNumber', ['pending', false]),
      rpc<unknown>(rpcUrl, 'eth_getTransactionReceipt', [hash]),
    ]);
    if (receipt || pending?.transactions?.includes(hash))
      return { hash, latencyMs: Math.round(performance.now() - started) };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the probe ${hash} was not pre-confirmed within ${timeoutMs / 1000} s`);
}
