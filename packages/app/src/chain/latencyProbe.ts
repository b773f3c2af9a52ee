/**
 * Submit-to-pending latency: sign a zero-value self-transfer from the last dev account, then time
 * from eth_sendRawTransaction to the moment the transaction is in the pending block (or has
 * a receipt). Signing and fee lookups happen before the clock starts.
 */
import { devAccounts } from '../auth/devAccounts.js';
import { chainRpc } from './chainRpc.js';

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
  const rpc = chainRpc(rpcUrl);
  const [nonce, gasPrice] = await Promise.all([
    rpc.request({ method: 'eth_getTransactionCount', params: [account.address, 'pending'] }),
    rpc.request({ method: 'eth_gasPrice' }),
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
  const hash = await rpc.request({ method: 'eth_sendRawTransaction', params: [signed] });
  while (performance.now() - started < timeoutMs) {
    // In the pending block (pre-confirmed), or already sealed: either way it is in.
    const [pending, receipt] = await Promise.all([
      rpc.request({ method: 'eth_getBlockByNumber', params: ['pending', false] }),
      rpc.request({ method: 'eth_getTransactionReceipt', params: [hash] }),
    ]);
    if (receipt || (pending?.transactions as readonly string[] | undefined)?.includes(hash))
      return { hash, latencyMs: Math.round(performance.now() - started) };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the probe ${hash} was not pre-confirmed within ${timeoutMs / 1000} s`);
}
